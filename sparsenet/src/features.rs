//! The sparse family's input: an [`Observation`] as a set of binary features, all in the mover's
//! frame (the board turned 180 degrees for White, as the ResNet's planes are: square `s` is
//! `PDN - 1` when Black moves and `32 - PDN` when White moves, so the mover's men always move
//! towards higher squares).
//!
//! Feature index, in groups ([`GROUPS`]):
//!
//! ```text
//!   0.. 32  own men on square s          96..128  opponent kings on square s
//!  32.. 64  own kings on square s       128..160  mid-capture: the capturing piece stands on s
//!  64.. 96  opponent men on square s    160..192  mid-capture: the piece on s was jumped already
//! 192..201  plies without progress: bucket min(plies / 10, 8), one of the nine always on
//! 201       the position occurred at least once before
//! 202       the position occurred at least twice before
//! ```

use draughts::{Bitboard, Color, Observation};
use smallvec::SmallVec;

/// Version of this encoding; checkpoints of the sparse family record it and refuse a mismatch.
pub const VERSION: u32 = netfile::SPARSE_FEATURES_VERSION;

/// Number of features.
pub const FEATURES: usize = 203;

/// Plies per bucket of the no-progress feature.
pub const NO_PROGRESS_BUCKET_PLIES: u16 = 10;

/// Buckets of the no-progress feature (the last one holds every count from 80 plies on).
pub const NO_PROGRESS_BUCKETS: usize = 9;

/// First feature that is not a piece on the board: 4 groups of 32 squares come first.
pub const PIECE_FEATURES: usize = 128;

/// Pieces on a board of a real game at most.
pub const MAX_PIECES: usize = 24;

/// The pieces on the board in an ascending set of active features (those below
/// [`PIECE_FEATURES`]; mid-capture, the jumped pieces are still on the board).
pub fn piece_count(active: &[u16]) -> usize {
    active.partition_point(|&f| usize::from(f) < PIECE_FEATURES)
}

/// Which of `buckets` value stacks a position of `pieces` pieces uses: equal ranges of the piece
/// count, `min(pieces, 24) * buckets / 25` (with four buckets: 0-6, 7-12, 13-18 and 19-24 pieces).
pub fn bucket(pieces: usize, buckets: usize) -> usize {
    pieces.min(MAX_PIECES) * buckets / (MAX_PIECES + 1)
}

/// Each group of features: name, first index, count and meaning.
pub const GROUPS: [(&str, usize, usize, &str); 9] = [
    ("own_men", 0, 32, "a man of the side to move on square s"),
    ("own_kings", 32, 32, "a king of the side to move on square s"),
    ("opponent_men", 64, 32, "an opponent man on square s"),
    ("opponent_kings", 96, 32, "an opponent king on square s"),
    ("moving_piece", 128, 32, "mid-capture: the capturing piece stands on square s"),
    (
        "captured_so_far",
        160,
        32,
        "mid-capture: the piece on square s was jumped in this move (it is still on the board)",
    ),
    (
        "no_progress",
        192,
        NO_PROGRESS_BUCKETS,
        "exactly one on: bucket min(plies since the last capture or man's move / 10, 8)",
    ),
    ("repeated_once", 201, 1, "the position occurred at least once before"),
    ("repeated_twice", 202, 1, "the position occurred at least twice before"),
];

/// The active features of one observation, in ascending order. At most 24 pieces, a moving
/// piece, 12 jumped pieces and 3 counters: it never spills to the heap.
pub type Active = SmallVec<[u16; 48]>;

/// The features of `obs` that are 1 (all others are 0), ascending.
pub fn active(obs: &Observation) -> Active {
    let mover = obs.position.side_to_move();
    let frame = |b: Bitboard| if mover == Color::White { b.flipped() } else { b };
    let mut out = Active::new();
    for (group, squares) in obs.piece_groups().into_iter().enumerate() {
        out.extend(frame(squares).into_iter().map(|sq| (32 * group + sq.index()) as u16));
    }
    out.extend(counters(obs));
    out
}

/// The active features of `obs` that are not pieces (from 192 on): its no-progress bucket and
/// its repetitions, ascending.
pub fn counters(obs: &Observation) -> SmallVec<[u16; 3]> {
    let bucket =
        usize::from(obs.no_progress_plies / NO_PROGRESS_BUCKET_PLIES).min(NO_PROGRESS_BUCKETS - 1);
    let mut out = SmallVec::new();
    out.push((192 + bucket) as u16);
    if obs.repetitions >= 1 {
        out.push(201);
    }
    if obs.repetitions >= 2 {
        out.push(202);
    }
    out
}

/// Writes the features of `obs` as 0/1 values into `out` (`FEATURES` values, overwritten): the
/// dense form the trainer feeds to its first linear layer.
///
/// # Panics
/// When `out.len() != FEATURES`.
pub fn encode_dense(obs: &Observation, out: &mut [f32]) {
    assert_eq!(out.len(), FEATURES, "one position has {FEATURES} features");
    out.fill(0.0);
    for f in active(obs) {
        out[usize::from(f)] = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draughts::{Position, Square};

    fn observe(position: Position) -> Observation {
        Observation::at_move_start(position, 0, 0)
    }

    #[test]
    fn groups_tile_the_features() {
        let mut next = 0;
        for (name, start, count, _) in GROUPS {
            assert_eq!(start, next, "{name}");
            next += count;
        }
        assert_eq!(next, FEATURES);
    }

    #[test]
    fn the_start_position_for_black() {
        let f = active(&observe(Position::start()));
        let own: Vec<u16> = (0..12).collect();
        let theirs: Vec<u16> = (64 + 20..64 + 32).collect();
        assert_eq!(&f[..12], own.as_slice(), "Black's men on PDN 1-12 are squares 0-11");
        assert_eq!(&f[12..24], theirs.as_slice(), "White's men on PDN 21-32");
        assert_eq!(&f[24..], &[192]);
    }

    #[test]
    fn the_mirrored_position_looks_the_same_to_its_mover() {
        let pos = Position::new(
            Bitboard(0x0000_1a3f),
            Bitboard(0x8c40_0000),
            Bitboard(0x0040_0002),
            Color::Black,
        )
        .unwrap();
        let sq = Square::from_pdn(10).unwrap();
        let mut a = observe(pos);
        a.moving_piece = Some(sq);
        a.captured_so_far = Bitboard::from_square(Square::from_pdn(23).unwrap());
        a.no_progress_plies = 37;
        a.repetitions = 2;
        let mut b = observe(pos.mirrored());
        b.moving_piece = Some(sq.flipped());
        b.captured_so_far = a.captured_so_far.flipped();
        b.no_progress_plies = 37;
        b.repetitions = 2;
        assert_eq!(active(&a), active(&b));
        let counters: Vec<u16> = active(&a).into_iter().filter(|&f| f >= 192).collect();
        assert_eq!(counters, [195, 201, 202]);
    }

    #[test]
    fn buckets_split_the_piece_counts_evenly() {
        let of = |buckets| (0..=30).map(|p| bucket(p, buckets)).collect::<Vec<_>>();
        assert!(of(1).iter().all(|&b| b == 0));
        let four = of(4);
        for (pieces, expected) in
            [(0, 0), (6, 0), (7, 1), (12, 1), (13, 2), (18, 2), (19, 3), (24, 3)]
        {
            assert_eq!(four[pieces], expected, "{pieces} pieces");
        }
        assert_eq!(four[30], 3, "a board of text with more pieces uses the last bucket");
        assert_eq!(*of(8).iter().max().unwrap(), 7);
        let f = active(&observe(Position::start()));
        assert_eq!(piece_count(&f), 24);
    }

    #[test]
    fn dense_and_sparse_agree_and_no_progress_saturates() {
        let mut obs = observe(Position::start());
        obs.no_progress_plies = 500;
        let mut dense = vec![f32::NAN; FEATURES];
        encode_dense(&obs, &mut dense);
        let on: Vec<u16> = (0..FEATURES).filter(|&i| dense[i] == 1.0).map(|i| i as u16).collect();
        assert_eq!(on.as_slice(), active(&obs).as_slice());
        assert!(dense.iter().all(|&v| v == 0.0 || v == 1.0));
        assert_eq!(*on.last().unwrap(), 200);
    }
}
