//! Levels for people: `level:1` to `level:8`, the shipped net made weaker in steps a person can
//! climb. A level is an MCTS player of the shipped net with fewer playouts, its move drawn from
//! the search's visits at a temperature (`move_temperature`) rather than the most visited, and at
//! the lowest levels the net's priors flattened (`policy_temperature`) so that its search looks
//! at moves it would not. Every level names its policy temperature, so that a change of the
//! players' default leaves the levels as they were calibrated (docs/levels.md). `play`, `serve`,
//! `hub`, `bestmove` and `analyse` take `level:N` wherever they take a player; it stands for the
//! spec [`spec`] gives.

use crate::shipped_net;
use anyhow::{bail, Result};

/// One level: the playouts a move, the temperature its move is drawn at, and the net's prior
/// temperature.
struct Level {
    playouts: u32,
    move_temperature: f32,
    policy_temperature: f32,
}

/// The policy temperature the upper levels were calibrated at (the players' default until
/// 2026-12-07).
const CALIBRATED: f32 = 1.6;

/// The levels, weakest first.
const LEVELS: [Level; 8] = [
    Level { playouts: 8, move_temperature: 4.0, policy_temperature: 10.0 },
    Level { playouts: 8, move_temperature: 2.0, policy_temperature: 4.0 },
    Level { playouts: 8, move_temperature: 2.0, policy_temperature: CALIBRATED },
    Level { playouts: 8, move_temperature: 1.0, policy_temperature: CALIBRATED },
    Level { playouts: 16, move_temperature: 0.5, policy_temperature: CALIBRATED },
    Level { playouts: 32, move_temperature: 0.25, policy_temperature: CALIBRATED },
    Level { playouts: 64, move_temperature: 0.0, policy_temperature: CALIBRATED },
    Level { playouts: 400, move_temperature: 0.0, policy_temperature: CALIBRATED },
];

/// How many levels there are: `level:1` to `level:COUNT`.
pub const COUNT: usize = LEVELS.len();

/// Whether `text` names a level (`level:...`, the number checked by [`spec`]), decided on the
/// text alone.
pub fn names_a_level(text: &str) -> bool {
    text.starts_with("level:")
}

/// The player `text` names: a `level:N` as the shipped net's MCTS spec it stands for, any other
/// spec as it is.
pub fn spec(text: &str) -> Result<String> {
    let Some(number) = text.strip_prefix("level:") else { return Ok(text.to_string()) };
    let level = match number.parse::<usize>() {
        Ok(n) if (1..=LEVELS.len()).contains(&n) => &LEVELS[n - 1],
        _ => bail!("player `{text}`: the level is a number from 1 to {}", LEVELS.len()),
    };
    let mut spec = format!("mcts:{}:{}", shipped_net::checkpoint()?.display(), level.playouts);
    if level.move_temperature > 0.0 {
        spec += &format!(",move_temperature={}", level.move_temperature);
    }
    spec += &format!(",policy_temperature={}", level.policy_temperature);
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_stand_for_the_shipped_net_and_other_players_pass_through() {
        let net = shipped_net::checkpoint().unwrap();
        let net = net.display();
        assert_eq!(spec("level:8").unwrap(), format!("mcts:{net}:400,policy_temperature=1.6"));
        assert_eq!(
            spec("level:1").unwrap(),
            format!("mcts:{net}:8,move_temperature=4,policy_temperature=10")
        );
        for text in ["alphabeta:4", "random", "mcts:x:64"] {
            assert_eq!(spec(text).unwrap(), text);
        }
        for bad in ["level:0", "level:9", "level:", "level:one"] {
            let err = spec(bad).unwrap_err().to_string();
            assert!(err.contains(&format!("`{bad}`")) && err.contains("from 1 to 8"), "{err}");
        }
        for level in 1..=LEVELS.len() {
            let text = spec(&format!("level:{level}")).unwrap();
            text.parse::<arena::PlayerSpec>().unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }
}
