//! Input encoding: an [`Observation`] as the net's family reads it ([`Input`]): the ResNet's
//! planes on the 8x8 board (this module), or the sparse net's features (`sparsenet::features`),
//! both from the mover's point of view.
//!
//! Layout of one position: `[PLANES, 8, 8]` f32, plane-major (`plane * 64 + row * 8 + column`).
//! The board is turned 180 degrees for White, so the mover's back rank is always row 0 and its men
//! move towards row 7; square index `s` of the mover's frame sits at row `s / 4`, column
//! `2 * (s % 4) + 1` on even rows and `2 * (s % 4)` on odd rows. Piece planes are zero on the light
//! squares; constant planes fill all 64 cells (so 3x3 convolutions with zero padding see the edge).

use draughts::{Bitboard, Color, Observation, Square};
use netfile::NetConfig;
use sparsenet::features::{self, FEATURES};
use tch::Tensor;

/// Bumped whenever the meaning of any plane changes; checkpoints record it and refuse a mismatch.
/// Version 2: mid-capture, the piece planes show the moving piece on its current square.
pub const ENCODING_VERSION: u32 = netfile::PLANES_VERSION;

/// The input of a family's net: each position a row of f32 values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The ResNet's `[PLANES, 8, 8]` planes.
    Planes,
    /// The sparse net's `[FEATURES]` 0/1 features.
    Features,
}

impl Input {
    /// The input of nets of `config`'s family.
    pub fn of(config: &NetConfig) -> Input {
        match config {
            NetConfig::Resnet(_) => Input::Planes,
            NetConfig::Sparse(_) => Input::Features,
        }
    }

    /// Values of one position.
    pub const fn size(self) -> usize {
        match self {
            Input::Planes => INPUT_SIZE,
            Input::Features => FEATURES,
        }
    }

    /// The shape of one position.
    pub fn dims(self) -> Vec<i64> {
        match self {
            Input::Planes => vec![PLANES as i64, 8, 8],
            Input::Features => vec![FEATURES as i64],
        }
    }

    /// Writes one observation into `out` (`self.size()` values, overwritten entirely).
    pub fn encode_into(self, obs: &Observation, out: &mut [f32]) {
        match self {
            Input::Planes => encode_into(obs, out),
            Input::Features => features::encode_dense(obs, out),
        }
    }

    /// Writes a batch into `out` (`obs.len() * self.size()` values).
    ///
    /// # Panics
    /// When `out` has another length.
    pub fn encode_batch_into(self, obs: &[Observation], out: &mut [f32]) {
        let size = self.size();
        assert_eq!(out.len(), obs.len() * size, "a batch of {} positions", obs.len());
        for (o, chunk) in obs.iter().zip(out.chunks_exact_mut(size)) {
            self.encode_into(o, chunk);
        }
    }

    /// The batch as a CPU tensor `[B, ...dims]` f32.
    pub fn encode_batch(self, obs: &[Observation]) -> Tensor {
        let mut buf = vec![0.0; obs.len() * self.size()];
        self.encode_batch_into(obs, &mut buf);
        self.tensor(&buf)
    }

    /// An encoded batch (`B * self.size()` values) as a CPU tensor `[B, ...dims]`: one copy.
    pub fn tensor(self, encoded: &[f32]) -> Tensor {
        let mut shape = vec![(encoded.len() / self.size()) as i64];
        shape.extend(self.dims());
        Tensor::from_slice(encoded).view(shape.as_slice())
    }
}

/// Number of input planes.
pub const PLANES: usize = 10;

/// Cells of one plane (8x8 board).
pub const CELLS: usize = 64;

/// f32 values of one encoded position: `PLANES * 64`.
pub const INPUT_SIZE: usize = PLANES * CELLS;

/// Plies over which the no-progress plane rises from 0 to 1 (the 40-move rule: 40 moves each).
pub const NO_PROGRESS_SCALE_PLIES: f32 = 80.0;

/// Name and meaning of each plane, in order.
pub const PLANE_NAMES: [(&str, &str); PLANES] = [
    ("own_men", "1 on each square holding a man of the side to move"),
    ("own_kings", "1 on each square holding a king of the side to move"),
    ("opponent_men", "1 on each square holding an opponent man"),
    ("opponent_kings", "1 on each square holding an opponent king"),
    (
        "moving_piece",
        "mid-capture: 1 where the capturing piece now stands (the piece planes show the position before the move)",
    ),
    (
        "captured_so_far",
        "mid-capture: 1 on each piece jumped so far in this move (still on the board until the move ends)",
    ),
    (
        "no_progress",
        "constant: plies since the last capture or man's move / 80, at most 1",
    ),
    (
        "repeated_once",
        "constant: 1 when this position occurred at least once before",
    ),
    (
        "repeated_twice",
        "constant: 1 when this position occurred at least twice before",
    ),
    ("ones", "constant 1 (lets convolutions see the board edge)"),
];

/// The cell (`row * 8 + column`) of `sq`, a square already in the mover's frame.
#[inline]
fn cell(sq: Square) -> usize {
    8 * sq.row() as usize + sq.column() as usize
}

/// Sets the cells of `squares` (board frame) to 1 in `plane`.
#[inline]
fn mark(plane: &mut [f32], squares: Bitboard, mover: Color) {
    let squares = if mover == Color::White { squares.flipped() } else { squares };
    for sq in squares {
        plane[cell(sq)] = 1.0;
    }
}

/// Writes one observation into `out` (`INPUT_SIZE` values, overwritten entirely).
///
/// # Panics
/// When `out.len() != INPUT_SIZE`.
pub fn encode_into(obs: &Observation, out: &mut [f32]) {
    assert_eq!(out.len(), INPUT_SIZE, "one encoded position is {INPUT_SIZE} values");
    out.fill(0.0);
    let mover = obs.position.side_to_move();
    let mut planes = out.chunks_exact_mut(CELLS);
    // The shorter iterator leads, so `zip` takes no plane beyond the last bitboard.
    for (squares, plane) in obs.piece_groups().into_iter().zip(planes.by_ref()) {
        mark(plane, squares, mover);
    }
    let constants = [
        (f32::from(obs.no_progress_plies) / NO_PROGRESS_SCALE_PLIES).min(1.0),
        f32::from(u8::from(obs.repetitions >= 1)),
        f32::from(u8::from(obs.repetitions >= 2)),
        1.0,
    ];
    for (plane, value) in planes.zip(constants) {
        plane.fill(value);
    }
}

/// Writes a batch into `out` (`obs.len() * INPUT_SIZE` values): the layout of a `[B, PLANES, 8, 8]`
/// tensor, for a caller that keeps one buffer across calls.
///
/// # Panics
/// When `out.len() != obs.len() * INPUT_SIZE`.
pub fn encode_batch_into(obs: &[Observation], out: &mut [f32]) {
    Input::Planes.encode_batch_into(obs, out)
}

/// The batch as a CPU tensor `[B, PLANES, 8, 8]` f32.
pub fn encode_batch(obs: &[Observation]) -> Tensor {
    Input::Planes.encode_batch(obs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::Position;

    fn observe(position: Position) -> Observation {
        Observation::at_move_start(position, 40, 1)
    }

    fn encode(obs: &Observation) -> Vec<f32> {
        let mut out = vec![f32::NAN; INPUT_SIZE];
        encode_into(obs, &mut out);
        out
    }

    #[test]
    fn start_position_planes() {
        let x = encode(&observe(Position::start()));
        let sum = |p: usize| x[p * CELLS..(p + 1) * CELLS].iter().sum::<f32>();
        assert_eq!(
            [sum(0), sum(1), sum(2), sum(3), sum(4), sum(5)],
            [12.0, 0.0, 12.0, 0.0, 0.0, 0.0]
        );
        assert_eq!([sum(6), sum(7), sum(8), sum(9)], [32.0, 64.0, 0.0, 64.0]);
        // PDN 1 (Black's back rank) is row 0, column 1 for Black, the mover.
        assert_eq!(x[1], 1.0);
        assert_eq!(x[0], 0.0, "light squares stay zero");
    }

    #[test]
    fn the_board_is_turned_for_white() {
        // The colour-swapped, rotated position must look the same to its mover.
        let pos = Position::new(
            Bitboard(0x0000_1a3f),
            Bitboard(0x8c40_0000),
            Bitboard(0x0040_0002),
            Color::Black,
        )
        .unwrap();
        let turned = pos.mirrored();
        let sq = Square::from_pdn(10).unwrap();
        let mut a = observe(pos);
        a.moving_piece = Some(sq);
        a.captured_so_far = Bitboard::from_square(Square::from_pdn(23).unwrap());
        let mut b = observe(turned);
        b.moving_piece = Some(sq.flipped());
        b.captured_so_far = a.captured_so_far.flipped();
        assert_eq!(encode(&a), encode(&b));
    }
}
