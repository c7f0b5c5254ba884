//! A slow, independent move generator on an 8x8 array, written from `rules.md` alone, to check the
//! bitboard generator against. It shares no code with the engine beyond reading the position.

use draughts::{Color, Position, Square};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Piece {
        color: Color,
        king: bool,
    },
    /// A piece jumped earlier in the capture in progress: still on the board, not jumpable again.
    Jumped,
}

type Board = [[Cell; 8]; 8];

/// A move as its start square and the squares it lands on, in PDN numbers.
pub type PathMove = (u8, Vec<u8>);

fn pdn(row: usize, col: usize) -> u8 {
    (row * 4 + col / 2 + 1) as u8
}

fn board_of(pos: &Position) -> Board {
    let mut board = [[Cell::Empty; 8]; 8];
    for sq in Square::all() {
        if let Some((color, king)) = pos.piece_at(sq) {
            board[sq.row() as usize][sq.column() as usize] = Cell::Piece { color, king };
        }
    }
    board
}

/// Row steps a piece may take: men forward only (Black towards row 7), kings both ways.
fn row_steps(color: Color, king: bool) -> &'static [i32] {
    match (king, color) {
        (true, _) => &[-1, 1],
        (false, Color::Black) => &[1],
        (false, Color::White) => &[-1],
    }
}

fn at(board: &Board, row: i32, col: i32) -> Option<Cell> {
    ((0..8).contains(&row) && (0..8).contains(&col)).then(|| board[row as usize][col as usize])
}

/// Continues a capture by the piece now on (row, col); pushes every complete path.
#[expect(clippy::too_many_arguments, reason = "the state of one recursive walk, kept plain")]
fn jumps(
    board: &mut Board,
    color: Color,
    king: bool,
    row: i32,
    col: i32,
    path: &mut Vec<u8>,
    out: &mut Vec<PathMove>,
    from: u8,
) {
    let mut extended = false;
    for &dr in row_steps(color, king) {
        for dc in [-1, 1] {
            let over = at(board, row + dr, col + dc);
            let land = at(board, row + 2 * dr, col + 2 * dc);
            let is_enemy = matches!(over, Some(Cell::Piece { color: c, .. }) if c != color);
            if !is_enemy || land != Some(Cell::Empty) {
                continue;
            }
            extended = true;
            let (or, oc, lr, lc) = (
                (row + dr) as usize,
                (col + dc) as usize,
                (row + 2 * dr) as usize,
                (col + 2 * dc) as usize,
            );
            let saved = board[or][oc];
            board[or][oc] = Cell::Jumped;
            path.push(pdn(lr, lc));
            let crowned = !king && lr == if color == Color::Black { 7 } else { 0 };
            if crowned {
                out.push((from, path.clone()));
            } else {
                jumps(board, color, king, lr as i32, lc as i32, path, out, from);
            }
            path.pop();
            board[or][oc] = saved;
        }
    }
    if !extended && !path.is_empty() {
        out.push((from, path.clone()));
    }
}

/// Every legal move of `pos`, sorted.
pub fn legal_moves(pos: &Position) -> Vec<PathMove> {
    moves_on(board_of(pos), pos.side_to_move())
}

/// Every legal move of `us` on `board`, sorted.
fn moves_on(mut board: Board, us: Color) -> Vec<PathMove> {
    let mut captures = Vec::new();
    let mut steps = Vec::new();
    for row in 0..8 {
        for col in 0..8 {
            let Cell::Piece { color, king } = board[row][col] else { continue };
            if color != us {
                continue;
            }
            let from = pdn(row, col);
            board[row][col] = Cell::Empty; // the jumping piece leaves its square
            jumps(
                &mut board,
                color,
                king,
                row as i32,
                col as i32,
                &mut Vec::new(),
                &mut captures,
                from,
            );
            board[row][col] = Cell::Piece { color, king };
            for &dr in row_steps(color, king) {
                for dc in [-1, 1] {
                    let (r, c) = (row as i32 + dr, col as i32 + dc);
                    if at(&board, r, c) == Some(Cell::Empty) {
                        steps.push((from, vec![pdn(r as usize, c as usize)]));
                    }
                }
            }
        }
    }
    let mut moves = if captures.is_empty() { steps } else { captures };
    moves.sort();
    moves
}

/// The row and column of the dark square numbered `pdn` (the inverse of [`pdn`]).
fn cell_of(pdn: u8) -> (usize, usize) {
    let index = usize::from(pdn - 1);
    let row = index / 4;
    (row, 2 * (index % 4) + usize::from(row % 2 == 0))
}

/// The board after `mv`: the piece goes to its last landing square (crowned on the far row), the
/// pieces it jumped leave the board.
fn play_on(board: &Board, (from, landings): &PathMove) -> Board {
    let mut next = *board;
    let (mut row, mut col) = cell_of(*from);
    let Cell::Piece { color, king } = next[row][col] else { panic!("no piece on {from}") };
    next[row][col] = Cell::Empty;
    for &square in landings {
        let (to_row, to_col) = cell_of(square);
        if to_row.abs_diff(row) == 2 {
            next[(row + to_row) / 2][(col + to_col) / 2] = Cell::Empty;
        }
        (row, col) = (to_row, to_col);
    }
    let far_row = if color == Color::Black { 7 } else { 0 };
    next[row][col] = Cell::Piece { color, king: king || row == far_row };
    next
}

/// Leaves of the move tree of `pos` at `depth` plies, every capture path counted separately,
/// found by the reference alone.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    fn walk(board: &Board, us: Color, depth: u32) -> u64 {
        let moves = moves_on(*board, us);
        match depth {
            0 => 1,
            1 => moves.len() as u64,
            _ => moves.iter().map(|mv| walk(&play_on(board, mv), us.other(), depth - 1)).sum(),
        }
    }
    walk(&board_of(pos), pos.side_to_move(), depth)
}

/// The engine's legal moves in the same form, sorted.
pub fn engine_moves(pos: &Position) -> Vec<PathMove> {
    let mut moves: Vec<PathMove> = pos
        .legal_moves()
        .iter()
        .map(|mv| (mv.from().pdn(), mv.squares().skip(1).map(Square::pdn).collect()))
        .collect();
    moves.sort();
    moves
}

#[test]
fn reference_agrees_on_the_hand_made_cases() {
    let pos = crate::support::fen("W:WK7:B10,11,18,19");
    assert_eq!(legal_moves(&pos), [(7, vec![14, 23, 16, 7]), (7, vec![16, 23, 14, 7])]);
    assert_eq!(legal_moves(&Position::start()).len(), 7);
}
