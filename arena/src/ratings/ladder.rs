//! The Elo ladder: ratings for every player in a set of result records, anchored at one of them.

use crate::error::ArenaError;
use crate::ratings::bradley_terry::{fit, PairResult};
use crate::record::{black_points, ResultRecord};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// Virtual draws added to each pair that met (see [`crate::ratings::bradley_terry`]).
pub const VIRTUAL_DRAWS: f64 = 1.0;

/// One player's line of the ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The player's name (see [`crate::Contestant::name`]).
    pub name: String,
    /// Training step, for checkpoint players.
    pub step: Option<u64>,
    /// Games the player played among the rated records.
    pub games: u32,
    /// Points per game.
    pub score: f64,
    /// Elo relative to the anchor player (0 for the anchor itself).
    pub elo: f64,
    /// Half the width of the 95% interval.
    pub margin: f64,
    /// When the player first played among the rated records (the smallest `unix_time`).
    pub first_played: u64,
}

/// The player to rate 0 when none is named: `random` if it played; else the built-in player (one
/// with no training step) with the most games, ties going to the first name; else the net of the
/// lowest training step (the run's first net).
pub fn default_anchor(records: &[ResultRecord]) -> String {
    let sides =
        || records.iter().flat_map(|r| [(&r.black, r.black_step), (&r.white, r.white_step)]);
    let mut fixed: BTreeMap<&str, u32> = BTreeMap::new();
    for (name, _) in sides().filter(|(_, step)| step.is_none()) {
        *fixed.entry(name).or_default() += 1;
    }
    let fixed =
        fixed.into_iter().min_by_key(|&(name, games)| (name != "random", Reverse(games), name));
    let first_net = || sides().filter_map(|(name, step)| Some((step?, name.as_str()))).min();
    fixed
        .map(|(name, _)| name)
        .or_else(|| first_net().map(|(_, name)| name))
        .unwrap_or("random")
        .to_string()
}

/// The records among players that a chain of games links to `anchor` (only those can be rated
/// against it).
pub fn linked_to(records: &[ResultRecord], anchor: &str) -> Vec<ResultRecord> {
    let mut linked: BTreeSet<&str> = BTreeSet::from([anchor]);
    loop {
        let before = linked.len();
        for r in records {
            if linked.contains(r.black.as_str()) || linked.contains(r.white.as_str()) {
                linked.insert(&r.black);
                linked.insert(&r.white);
            }
        }
        if linked.len() == before {
            break;
        }
    }
    records.iter().filter(|r| linked.contains(r.black.as_str())).cloned().collect()
}

/// Rates every player in `records`, `anchor` at 0 Elo; sorted strongest first.
pub fn rate<'a>(records: &'a [ResultRecord], anchor: &str) -> Result<Vec<Rating>, ArenaError> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut players: Vec<Rating> = Vec::new();
    let mut pairs: BTreeMap<(usize, usize), PairResult> = BTreeMap::new();
    let mut points: Vec<f64> = Vec::new();
    for r in records {
        let mut id = |name: &'a str, step: Option<u64>| -> usize {
            *index.entry(name).or_insert_with(|| {
                players.push(Rating {
                    name: name.to_string(),
                    step,
                    games: 0,
                    score: 0.0,
                    elo: 0.0,
                    margin: 0.0,
                    first_played: r.unix_time,
                });
                points.push(0.0);
                players.len() - 1
            })
        };
        let (black, white) = (id(&r.black, r.black_step), id(&r.white, r.white_step));
        for side in [black, white] {
            players[side].first_played = players[side].first_played.min(r.unix_time);
        }
        let Some(black_points) = black_points(r.result).filter(|_| black != white) else {
            continue;
        };
        players[black].games += 1;
        players[white].games += 1;
        points[black] += black_points;
        points[white] += 1.0 - black_points;
        let (a, b, a_points) = if black < white {
            (black, white, black_points)
        } else {
            (white, black, 1.0 - black_points)
        };
        let pair = pairs.entry((a, b)).or_insert(PairResult { a, b, games: 0.0, points: 0.0 });
        pair.games += 1.0;
        pair.points += a_points;
    }
    let Some(&anchor_index) = index.get(anchor) else {
        return Err(ArenaError::AnchorUnplayed { anchor: anchor.to_string() });
    };
    let pairs: Vec<PairResult> = pairs.into_values().collect();
    let fitted = fit(players.len(), &pairs, anchor_index, VIRTUAL_DRAWS).map_err(|unreached| {
        ArenaError::Unlinked {
            anchor: anchor.to_string(),
            players: unreached.iter().map(|&i| players[i].name.clone()).collect(),
        }
    })?;
    for ((player, f), points) in players.iter_mut().zip(fitted).zip(points) {
        player.elo = f.elo;
        player.margin = f.margin;
        player.score = points / f64::from(player.games.max(1));
    }
    players.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    Ok(players)
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::GameResult;

    #[test]
    fn only_players_linked_to_the_anchor_are_kept() {
        let records = [
            game("a", "b", GameResult::Draw),
            game("b", "c", GameResult::BlackWins),
            game("x", "y", GameResult::Draw),
        ];
        let linked = linked_to(&records, "c");
        assert_eq!(linked.len(), 2);
        assert!(linked.iter().all(|r| r.black != "x"));
        assert!(rate(&linked, "c").is_ok());
        assert!(rate(&records, "c").is_err());
    }

    /// A game at time 0; players named `net-STEP` are nets of that step.
    fn game(black: &str, white: &str, result: GameResult) -> ResultRecord {
        let step = |name: &str| name.strip_prefix("net-").map(|s| s.parse().unwrap());
        ResultRecord {
            black: black.into(),
            white: white.into(),
            black_step: step(black),
            white_step: step(white),
            result,
            ending: "no_moves".into(),
            ballot: "001".into(),
            plies: 40,
            unix_time: 0,
        }
    }

    #[test]
    fn the_default_anchor_is_random_when_it_played() {
        let records = [
            game("net-100", "alphabeta:4", GameResult::Draw),
            game("net-100", "alphabeta:4", GameResult::Draw),
            game("random", "net-100", GameResult::WhiteWins),
        ];
        assert_eq!(default_anchor(&records), "random");
    }

    #[test]
    fn else_the_default_anchor_is_the_builtin_player_with_the_most_games() {
        let mut records = vec![
            game("net-100", "alphabeta:6", GameResult::Draw),
            game("alphabeta:6", "net-200", GameResult::Draw),
            game("net-100", "alphabeta:4", GameResult::Draw),
            game("net-200", "alphabeta:4", GameResult::Draw),
            game("net-200", "net-100", GameResult::Draw),
        ];
        assert_eq!(default_anchor(&records), "alphabeta:4", "a tie goes to the first name");
        records.push(game("net-300", "alphabeta:6", GameResult::Draw));
        assert_eq!(default_anchor(&records), "alphabeta:6");
    }

    #[test]
    fn else_the_default_anchor_is_the_net_of_the_lowest_step() {
        let records = [
            game("net-200", "net-300", GameResult::Draw),
            game("net-200", "net-100", GameResult::Draw),
        ];
        assert_eq!(default_anchor(&records), "net-100");
        assert_eq!(default_anchor(&[]), "random");
    }

    #[test]
    fn a_rating_carries_when_the_player_first_played() {
        let at = |time, black, white| ResultRecord {
            unix_time: time,
            ..game(black, white, GameResult::Draw)
        };
        let records = [
            at(500, "net-200", "random"),
            at(300, "net-100", "random"),
            at(900, "net-200", "net-100"),
        ];
        let ladder = rate(&records, "random").unwrap();
        let first = |name: &str| ladder.iter().find(|r| r.name == name).unwrap().first_played;
        assert_eq!((first("random"), first("net-100"), first("net-200")), (300, 300, 500));
    }

    #[test]
    fn ratings_are_anchored_sorted_and_carry_steps() {
        let mut records = Vec::new();
        for _ in 0..10 {
            records.push(game("net-100", "random", GameResult::BlackWins));
            records.push(game("alphabeta:2", "random", GameResult::Draw));
            records.push(game("net-100", "alphabeta:2", GameResult::Draw));
        }
        let ladder = rate(&records, "random").unwrap();
        let names: Vec<&str> = ladder.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["net-100", "alphabeta:2", "random"]);
        assert_eq!(ladder[0].step, Some(100));
        assert_eq!(ladder[0].games, 20);
        assert_eq!(ladder[0].score, 0.75);
        assert_eq!(ladder[2].elo, 0.0);
    }

    #[test]
    fn a_missing_anchor_is_named() {
        let records = [game("a", "b", GameResult::Draw)];
        let err = rate(&records, "random").unwrap_err().to_string();
        assert!(err.contains("`random`"), "{err}");
    }
}
