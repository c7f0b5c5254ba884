//! Move generation: compulsory captures with every jump path, otherwise simple steps.
//! Whole-board shifts find the pieces that can step or jump, so only those are looked at.
//! No heap allocation: moves are handed to a callback.

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::square::{Direction, Square};

impl Position {
    /// Pieces of the side to move that may step or jump in `dir`: all of them for a forward
    /// direction, only kings otherwise.
    #[inline]
    fn movers(&self, dir: Direction) -> Bitboard {
        let us = self.side_to_move();
        if dir.is_forward_for(us) {
            self.pieces(us)
        } else {
            self.kings(us)
        }
    }

    /// Pieces of the side to move that have a capture.
    #[inline]
    fn capturers(&self) -> Bitboard {
        let opponents = self.pieces(self.side_to_move().other());
        let empty = self.empty();
        Direction::ALL.iter().fold(Bitboard::EMPTY, |acc, &dir| {
            acc | (self.movers(dir) & jump_sources(dir, opponents, empty))
        })
    }

    /// Whether the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        !self.capturers().is_empty()
    }

    /// Number of simple (non-capturing) moves, ignoring compulsory capture.
    #[inline]
    pub(crate) fn count_simple_moves(&self) -> u32 {
        let empty = self.empty();
        Direction::ALL.iter().map(|&dir| (self.movers(dir).shift(dir) & empty).count()).sum()
    }

    /// Calls `f` with every legal move.
    #[inline]
    pub fn for_each_legal_move(&self, mut f: impl FnMut(Move)) {
        let capturers = self.capturers();
        if capturers.is_empty() {
            self.for_each_simple_move(&mut f);
        } else {
            self.for_each_capture(capturers, &mut f);
        }
    }

    /// Number of legal moves, every capture path counted (perft's bulk count).
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let capturers = self.capturers();
        if capturers.is_empty() {
            return self.count_simple_moves() as u64;
        }
        let mut n = self.count_man_captures();
        self.for_each_capture(capturers & self.kings(self.side_to_move()), &mut |_| n += 1);
        n
    }

    /// Number of capture paths of the side's men. Single jumps are counted from bitboards; the
    /// path search runs only from landing squares where the capture goes on.
    #[inline]
    fn count_man_captures(&self) -> u64 {
        let us = self.side_to_move();
        let men = self.men(us);
        let opponents = self.pieces(us.other());
        let empty = self.empty();
        // Where a man could jump forward now. A man's jump never lands behind it, so neither the
        // square it left nor the piece it jumped changes this.
        let can_jump = us
            .forward()
            .iter()
            .fold(Bitboard::EMPTY, |acc, &dir| acc | jump_sources(dir, opponents, empty));
        let mut n = 0;
        for dir in us.forward() {
            let landings = (men.shift(dir) & opponents).shift(dir) & empty;
            let going_on = landings & can_jump & !Position::crown_row(us);
            n += u64::from((landings & !going_on).count());
            for land in going_on {
                let over = Bitboard::from_square(land).shift(dir.opposite());
                let from =
                    over.shift(dir.opposite()).first().expect("a landing square has a start");
                CaptureSearch::new(self, from).extend::<false>(
                    land,
                    over,
                    1,
                    dir as u32,
                    &mut |_| n += 1,
                );
            }
        }
        n
    }

    #[inline]
    fn for_each_simple_move(&self, f: &mut impl FnMut(Move)) {
        let empty = self.empty();
        for dir in Direction::ALL {
            let sources = self.movers(dir) & empty.shift(dir.opposite());
            // A shift keeps the order of squares, so sources and targets pair up in order.
            for (from, to) in sources.zip(sources.shift(dir)) {
                f(Move::step(from, to, dir));
            }
        }
    }

    #[inline]
    fn for_each_capture(&self, capturers: Bitboard, f: &mut impl FnMut(Move)) {
        let us = self.side_to_move();
        for from in capturers {
            let search = CaptureSearch::new(self, from);
            if self.kings(us).contains(from) {
                search.extend::<true>(from, Bitboard::EMPTY, 0, 0, f);
            } else {
                search.extend::<false>(from, Bitboard::EMPTY, 0, 0, f);
            }
        }
    }
}

/// Squares from which a piece could jump in `dir`: an opponent next to it, an empty square beyond.
#[inline]
fn jump_sources(dir: Direction, opponents: Bitboard, empty: Bitboard) -> Bitboard {
    let back = dir.opposite();
    (opponents & empty.shift(back)).shift(back)
}

/// Depth-first search of the jump paths of one piece.
struct CaptureSearch {
    from: Square,
    /// The directions a man of the capturing side jumps in.
    forward: [Direction; 2],
    /// Where a man of the capturing side is crowned, which ends its move.
    crown: Bitboard,
    opponents: Bitboard,
    empty: Bitboard,
}

impl CaptureSearch {
    /// The search for captures by the piece of the side to move on `from`.
    #[inline]
    fn new(pos: &Position, from: Square) -> CaptureSearch {
        let us = pos.side_to_move();
        CaptureSearch {
            from,
            forward: us.forward(),
            crown: Position::crown_row(us),
            opponents: pos.pieces(us.other()),
            // The jumping piece has left its square; captured pieces stay until the move ends.
            empty: pos.empty().with(from),
        }
    }

    /// Extends a capture path that stands on `at`; `KING` tells whether the jumping piece is a king.
    fn extend<const KING: bool>(
        &self,
        at: Square,
        captured: Bitboard,
        jumps: u8,
        path: u32,
        f: &mut impl FnMut(Move),
    ) {
        let at_bb = Bitboard::from_square(at);
        let dirs: &[Direction] = if KING { &Direction::ALL } else { &self.forward };
        let mut extended = false;
        for &dir in dirs {
            let over = at_bb.shift(dir) & self.opponents & !captured;
            let Some(land) = (over.shift(dir) & self.empty).first() else {
                continue;
            };
            extended = true;
            let captured = captured | over;
            let path = path | (dir as u32) << (2 * jumps as u32);
            if !KING && self.crown.contains(land) {
                f(Move::capture(self.from, land, jumps + 1, path, captured));
            } else {
                self.extend::<KING>(land, captured, jumps + 1, path, f);
            }
        }
        if !extended && jumps > 0 {
            f(Move::capture(self.from, at, jumps, path, captured));
        }
    }
}
