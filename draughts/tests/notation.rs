//! FEN, move text and PDN files as other draughts software writes them.

use draughts::{read_pdn, write_pdn, GameResult, PdnError, PdnGame, Position};

const SAMPLE: &str = include_str!("data/sample_games.pdn");

#[test]
fn sample_file_loads() {
    let games = read_pdn(SAMPLE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 3);
    assert_eq!(games[0].tag("Opening"), Some("Old Fourteenth"));
    assert_eq!(games[0].result, GameResult::Draw);
    assert_eq!(games[1].result, GameResult::BlackWins);
    assert_eq!(games[2].result, GameResult::Unknown);
    assert_ne!(games[2].start, Position::start());
}

#[test]
fn written_games_read_back_unchanged() {
    let games = read_pdn(SAMPLE).unwrap();
    let text = write_pdn(&games);
    let again = read_pdn(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again, games.iter().map(|g| with_written_tags(g.clone())).collect::<Vec<_>>());
    assert!(text.starts_with("[Event \"Club Championship\"]\n[Site \"Glasgow SCO\"]"), "{text}");
    assert!(text.contains("[SetUp \"1\"]\n[FEN \"W:WK14,K15,K18:B3,K13\"]"), "{text}");
    assert!(text.contains("1... 18-22 2. 13-9 14x5 3. 3-8 5-9 *"), "{text}");
    assert!(text.contains("5. 19-24 27x20x11"), "{text}");
}

/// The tags of `game` in the order the writer puts them.
fn with_written_tags(mut game: PdnGame) -> PdnGame {
    let text = game.to_string();
    game.tags = read_pdn(&text).unwrap().remove(0).tags;
    game
}

#[test]
fn pdn_errors_say_where() {
    let err = read_pdn("[Event \"x\"]\n1. 11-15 23-19\n2. 8-11 23-19 *").unwrap_err();
    let PdnError::Move { game, line, column, move_number, .. } = &err else { panic!("{err}") };
    assert_eq!((*game, *line, *column, *move_number), (1, 3, 9, 2), "{err}");
    let err = read_pdn("1. 11-15 *\n\n[FEN \"B:W33:B1\"]").unwrap_err();
    assert!(matches!(err, PdnError::Fen { game: 2, line: 3, .. }), "{err}");
    let err = read_pdn("[Event \"x\"\n1. 11-15").unwrap_err();
    assert!(matches!(err, PdnError::Syntax { game: 1, line: 1, .. }), "{err}");
    let err = read_pdn("1. 11-15 (23-19").unwrap_err();
    assert!(matches!(err, PdnError::Syntax { column: 10, .. }), "{err}");
}

#[test]
fn pdn_reading_is_liberal() {
    let text = "\u{feff}[Event \"compact\"]\n1.11-15 23-19 2.8-11 22-17 3. 9-13 17-14 3... 10x17 {jump} 4.21x14 0-1";
    let games = read_pdn(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves.len(), 8);
    assert_eq!(games[0].result, GameResult::WhiteWins);
    // No termination marker: the next tag section starts the next game; the Result tag is used.
    let games = read_pdn("[Result \"1-0\"]\n1. 11-15\n[Result \"2-0\"]\n1. 9-13").unwrap();
    assert_eq!(games.iter().map(|g| g.result).collect::<Vec<_>>(), [GameResult::BlackWins; 2]);
}

#[test]
fn comments_are_written_where_they_belong_and_skipped_on_reading() {
    let mut game = read_pdn("[Event \"c\"]\n1. 11-15 23-19 2. 8-11 *").unwrap().remove(0);
    game.comments = vec![
        (0, "a summary".into()),
        (1, "after Black's {first} move".into()),
        (3, "last".into()),
        (3, "and again".into()),
    ];
    let text = game.to_string();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "{a summary} 1. 11-15 {after Black's {first) move} 23-19 2. 8-11 {last} {and again} *"
        ),
        "{text}"
    );
    let again = read_pdn(&text).unwrap_or_else(|e| panic!("{e}\n{text}")).remove(0);
    assert_eq!(again, PdnGame { comments: Vec::new(), ..with_written_tags(game) });
}
