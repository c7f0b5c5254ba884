//! One sample's compact little-endian encoding, and [`Records`]: a validated run of them, the
//! in-memory form the replay window keeps (the encoded bytes plus one offset per sample).
//!
//! ```text
//! offset size  field
//!  0     4     black pieces (bitboard, men and kings)
//!  4     4     white pieces
//!  8     4     kings of both sides
//! 12     4     captured so far (capture in progress)
//! 16     1     flags: bit 0 White to move, bit 1 full search, bit 2 a capture is in progress,
//!              bit 3 the opponent's reply is known (format version 2)
//! 17     1     the capturing piece's square index (0 when none)
//! 18     2     no-progress plies
//! 20     1     repetitions
//! 21     1     result for the side to move (i8: 1, 0, -1)
//! 22     2     plies to the end
//! 24     2     search value, i16 = round(value * 32767)
//! 26     1     n = policy entries
//! 27     1     only with flag bit 3: the reply is this many records on (1..=255, same shard)
//! 27|28  3n    (policy index u8, probability u16 = round(p * 65535)), indices strictly increasing
//! ```

use crate::sample::Sample;
use draughts::{Bitboard, Color, Observation, Position, PositionError, Square, Step};

/// Bytes of a record before its policy entries, without the reply's byte.
pub const FIXED_BYTES: usize = 27;
/// Bytes of one policy entry.
pub const ENTRY_BYTES: usize = 3;

const FLAG_WHITE: u8 = 1;
const FLAG_FULL: u8 = 2;
const FLAG_CAPTURING: u8 = 4;
const FLAG_REPLY: u8 = 8;
const VALUE_SCALE: f32 = i16::MAX as f32;
const PROB_SCALE: f32 = u16::MAX as f32;

/// Why a sample cannot be encoded, or why encoded bytes are not a record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// The search value is NaN or infinite.
    #[error("search value {value} is not finite")]
    SearchValue {
        /// The value.
        value: f32,
    },
    /// The result is not 1, 0 or -1.
    #[error("result {result} is not 1, 0 or -1")]
    Result {
        /// The result.
        result: i8,
    },
    /// A policy index is listed twice.
    #[error("policy index {index} appears twice")]
    DuplicateIndex {
        /// The index.
        index: u8,
    },
    /// A policy index is not below 128 or a probability is not in 0..=1.
    #[error("policy entry ({index}, {probability}) is out of range")]
    PolicyEntry {
        /// The policy index.
        index: u8,
        /// Its probability.
        probability: f32,
    },
    /// Stored policy indices are out of range or not strictly increasing.
    #[error("policy index {index} is out of range or out of order")]
    PolicyOrder {
        /// The first index out of place.
        index: u8,
    },
    /// The payload is larger than the `u32` offsets can address.
    #[error("{len} payload bytes are more than a shard may hold")]
    PayloadTooLarge {
        /// Bytes of payload.
        len: usize,
    },
    /// Bytes remain after the last record.
    #[error("{extra} bytes follow the last sample")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The payload ends before the record's fixed fields do.
    #[error("the payload ends inside the sample")]
    Truncated,
    /// The payload ends inside the record's policy entries.
    #[error("the payload ends inside the sample's policy")]
    TruncatedPolicy,
    /// The opponent's reply is said to be 0 records on, or past the shard's last record.
    #[error("the opponent's reply is {after} samples on, outside the shard")]
    ReplyOutside {
        /// The stored distance.
        after: u8,
    },
    /// The stored squares are not a position.
    #[error("not a position")]
    Position(#[source] PositionError),
    /// Flag bits this format does not define are set.
    #[error("unknown flags {flags:#04x}")]
    Flags {
        /// The flags byte.
        flags: u8,
    },
    /// The capturing piece's square is out of range, or set while no capture is in progress.
    #[error("capturing-piece square {square} does not match the flags {flags:#04x}")]
    MovingPiece {
        /// The stored square index.
        square: u8,
        /// The flags byte.
        flags: u8,
    },
}

/// Appends the encoding of `sample` to `out`, or says what makes it unwritable.
pub fn encode(sample: &Sample, out: &mut Vec<u8>) -> Result<(), RecordError> {
    let obs = &sample.observation;
    let pos = &obs.position;
    if !sample.search_value.is_finite() {
        return Err(RecordError::SearchValue { value: sample.search_value });
    }
    if !(-1..=1).contains(&sample.result) {
        return Err(RecordError::Result { result: sample.result });
    }
    let mut policy = sample.policy.clone();
    policy.sort_unstable_by_key(|&(index, _)| index);
    if let Some(w) = policy.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(RecordError::DuplicateIndex { index: w[0].0 });
    }
    if let Some(&(index, probability)) = policy
        .iter()
        .find(|&&(index, p)| index as usize >= Step::INDEX_COUNT || !(0.0..=1.0).contains(&p))
    {
        return Err(RecordError::PolicyEntry { index, probability });
    }
    let mut flags = 0;
    if pos.side_to_move() == Color::White {
        flags |= FLAG_WHITE;
    }
    if sample.full_search {
        flags |= FLAG_FULL;
    }
    if obs.moving_piece.is_some() {
        flags |= FLAG_CAPTURING;
    }
    if sample.reply_after.is_some() {
        flags |= FLAG_REPLY;
    }
    let kings = pos.kings(Color::Black) | pos.kings(Color::White);
    for word in [pos.pieces(Color::Black), pos.pieces(Color::White), kings, obs.captured_so_far] {
        out.extend_from_slice(&word.0.to_le_bytes());
    }
    out.push(flags);
    out.push(obs.moving_piece.map_or(0, |sq| sq.index() as u8));
    out.extend_from_slice(&obs.no_progress_plies.to_le_bytes());
    out.push(obs.repetitions);
    out.push(sample.result as u8);
    out.extend_from_slice(&sample.plies_to_end.to_le_bytes());
    out.extend_from_slice(
        &((sample.search_value.clamp(-1.0, 1.0) * VALUE_SCALE).round() as i16).to_le_bytes(),
    );
    out.push(policy.len() as u8); // at most 128 distinct indices below 128
    if let Some(after) = sample.reply_after {
        out.push(after);
    }
    for (index, p) in policy {
        out.push(index);
        out.extend_from_slice(&((p * PROB_SCALE).round() as u16).to_le_bytes());
    }
    Ok(())
}

/// Validated encoded samples: `bytes` holds them back to back, `offsets[i]` where sample `i` starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Records {
    bytes: Vec<u8>,
    offsets: Vec<u32>,
}

impl Records {
    /// Checks that `bytes` holds exactly `count` well-formed records and indexes them.
    /// On failure: the index of the first bad record and what is wrong with it.
    pub fn parse(mut bytes: Vec<u8>, count: usize) -> Result<Records, (usize, RecordError)> {
        if bytes.len() > u32::MAX as usize {
            return Err((0, RecordError::PayloadTooLarge { len: bytes.len() }));
        }
        // The caller has checked that `count` records of at least FIXED_BYTES fit in `bytes`.
        let mut offsets = Vec::with_capacity(count);
        let mut at = 0;
        for index in 0..count {
            let rest = &bytes[at..];
            let len = validate(rest).map_err(|reason| (index, reason))?;
            let reply = RecordView { bytes: rest }.reply_after();
            if let Some(after) = reply.filter(|&a| a == 0 || index + a as usize >= count) {
                return Err((index, RecordError::ReplyOutside { after }));
            }
            offsets.push(at as u32);
            at += len;
        }
        if at != bytes.len() {
            return Err((count, RecordError::TrailingBytes { extra: bytes.len() - at }));
        }
        bytes.shrink_to_fit();
        Ok(Records { bytes, offsets })
    }

    /// Encodes `samples`, or names the first one that cannot be written.
    pub fn encode_all(samples: &[Sample]) -> Result<Vec<u8>, (usize, RecordError)> {
        let mut out = Vec::with_capacity(samples.len() * (FIXED_BYTES + 8 * ENTRY_BYTES));
        for (index, sample) in samples.iter().enumerate() {
            encode(sample, &mut out).map_err(|reason| (index, reason))?;
        }
        Ok(out)
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Sample `i`. Panics when `i >= len()`, like slice indexing.
    pub fn get(&self, i: usize) -> RecordView<'_> {
        RecordView { bytes: &self.bytes[self.offsets[i] as usize..] }
    }

    /// The opponent's reply to sample `i` (see [`Sample::reply_after`]), if known. Panics when
    /// `i >= len()`.
    pub fn reply(&self, i: usize) -> Option<RecordView<'_>> {
        self.get(i).reply_after().map(|after| self.get(i + after as usize))
    }

    /// Every sample, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = RecordView<'_>> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Heap bytes held (the payload and the offsets).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.offsets.capacity() * std::mem::size_of::<u32>()
    }
}

/// One validated record, decoded field by field on demand (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct RecordView<'a> {
    /// The record and whatever follows it.
    bytes: &'a [u8],
}

impl<'a> RecordView<'a> {
    fn u16_at(&self, at: usize) -> u16 {
        u16::from_le_bytes([self.bytes[at], self.bytes[at + 1]])
    }

    fn bitboard_at(&self, at: usize) -> Bitboard {
        Bitboard(u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes")))
    }

    /// What the net saw at this decision (see [`Sample::observation`]).
    pub fn observation(&self) -> Observation {
        let flags = self.bytes[16];
        let side = if flags & FLAG_WHITE != 0 { Color::White } else { Color::Black };
        let position =
            Position::new(self.bitboard_at(0), self.bitboard_at(4), self.bitboard_at(8), side)
                .expect("records are validated when parsed");
        Observation {
            position,
            moving_piece: if flags & FLAG_CAPTURING != 0 {
                Square::new(self.bytes[17])
            } else {
                None
            },
            captured_so_far: self.bitboard_at(12),
            no_progress_plies: self.u16_at(18),
            repetitions: self.bytes[20],
        }
    }

    /// Whether the decision had a full search (see [`Sample::full_search`]).
    pub fn full_search(&self) -> bool {
        self.bytes[16] & FLAG_FULL != 0
    }

    /// The game's result for the side to move: 1, 0 or -1 (see [`Sample::result`]).
    pub fn result(&self) -> i8 {
        self.bytes[21] as i8
    }

    /// Decision points from this one to the end of the game (see [`Sample::plies_to_end`]).
    pub fn plies_to_end(&self) -> u16 {
        self.u16_at(22)
    }

    /// The search's root value for the side to move, in -1..=1 (stored to 1/32767; the one
    /// stored value below -32767, which no writer makes, reads as -1).
    pub fn search_value(&self) -> f32 {
        (self.u16_at(24) as i16 as f32 / VALUE_SCALE).max(-1.0)
    }

    /// How many records on the opponent's reply is (see [`Sample::reply_after`]).
    pub fn reply_after(&self) -> Option<u8> {
        (self.bytes[16] & FLAG_REPLY != 0).then(|| self.bytes[FIXED_BYTES])
    }

    /// Where the policy entries start: after the fixed fields and the reply's byte, if any.
    fn policy_start(&self) -> usize {
        FIXED_BYTES + usize::from(self.bytes[16] & FLAG_REPLY != 0)
    }

    /// The visit distribution: (policy index, probability), indices increasing.
    pub fn policy(&self) -> impl ExactSizeIterator<Item = (u8, f32)> + 'a {
        let n = self.bytes[26] as usize;
        let start = self.policy_start();
        self.bytes[start..start + n * ENTRY_BYTES]
            .chunks_exact(ENTRY_BYTES)
            .map(|e| (e[0], u16::from_le_bytes([e[1], e[2]]) as f32 / PROB_SCALE))
    }

    /// The whole sample, decoded.
    pub fn to_sample(&self) -> Sample {
        Sample {
            observation: self.observation(),
            policy: self.policy().collect(),
            search_value: self.search_value(),
            result: self.result(),
            plies_to_end: self.plies_to_end(),
            full_search: self.full_search(),
            reply_after: self.reply_after(),
        }
    }
}

/// Checks the record at the start of `bytes` and returns its length.
fn validate(bytes: &[u8]) -> Result<usize, RecordError> {
    if bytes.len() < FIXED_BYTES {
        return Err(RecordError::Truncated);
    }
    let view = RecordView { bytes };
    let len = view.policy_start() + bytes[26] as usize * ENTRY_BYTES;
    if bytes.len() < len {
        return Err(RecordError::TruncatedPolicy);
    }
    let (black, white, kings) = (view.bitboard_at(0), view.bitboard_at(4), view.bitboard_at(8));
    Position::new(black, white, kings, Color::Black).map_err(RecordError::Position)?;
    let flags = bytes[16];
    if flags & !(FLAG_WHITE | FLAG_FULL | FLAG_CAPTURING | FLAG_REPLY) != 0 {
        return Err(RecordError::Flags { flags });
    }
    let square = bytes[17];
    if (flags & FLAG_CAPTURING != 0 && square as usize >= Square::COUNT)
        || (flags & FLAG_CAPTURING == 0 && square != 0)
    {
        return Err(RecordError::MovingPiece { square, flags });
    }
    if !(-1..=1).contains(&view.result()) {
        return Err(RecordError::Result { result: view.result() });
    }
    let mut previous = None;
    for (index, _) in view.policy() {
        if index as usize >= Step::INDEX_COUNT || previous.is_some_and(|p| p >= index) {
            return Err(RecordError::PolicyOrder { index });
        }
        previous = Some(index);
    }
    Ok(len)
}

#[cfg(test)]
mod tests;
