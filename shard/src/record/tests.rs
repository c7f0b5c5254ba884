//! The sample record's tests: round trips within quantisation, the opponent's reply linked, bad
//! samples and malformed records refused.

use super::*;

fn sample() -> Sample {
    Sample {
        observation: Observation {
            position: Position::start().with_side_to_move(Color::White),
            moving_piece: Square::new(13),
            captured_so_far: Bitboard(1 << 17),
            no_progress_plies: 7,
            repetitions: 2,
        },
        policy: vec![(90, 0.25), (3, 0.75)],
        search_value: -0.4,
        result: -1,
        plies_to_end: 31,
        full_search: true,
        reply_after: None,
    }
}

#[test]
fn a_sample_round_trips_within_quantisation() {
    let s = sample();
    let records = Records::parse(Records::encode_all(&[s.clone(), s.clone()]).unwrap(), 2).unwrap();
    assert_eq!(records.len(), 2);
    let back = records.get(1).to_sample();
    assert_eq!(back.observation, s.observation);
    assert_eq!((back.result, back.plies_to_end, back.full_search), (-1, 31, true));
    assert!((back.search_value - s.search_value).abs() < 1.0 / 32767.0);
    assert_eq!(back.policy.iter().map(|e| e.0).collect::<Vec<_>>(), [3, 90]);
    assert!((back.policy[0].1 - 0.75).abs() < 1.0 / 65535.0);
    assert_eq!(records.heap_bytes(), 2 * (FIXED_BYTES + 2 * ENTRY_BYTES) + 2 * 4);
}

#[test]
fn a_stored_search_value_below_minus_one_reads_as_minus_one() {
    // Found by the shard_records fuzz target: -32768 read as -1.0000305, which encodes as -1
    // and so did not read back the same.
    let mut bytes = Records::encode_all(&[sample()]).unwrap();
    bytes[24..26].copy_from_slice(&i16::MIN.to_le_bytes());
    let read = Records::parse(bytes, 1).unwrap().get(0).to_sample();
    assert_eq!(read.search_value, -1.0);
    let again =
        Records::parse(Records::encode_all(std::slice::from_ref(&read)).unwrap(), 1).unwrap();
    assert_eq!(again.get(0).to_sample(), read);
}

#[test]
fn the_opponents_reply_is_found_in_the_shard_and_one_outside_it_is_refused() {
    let mover = Sample { reply_after: Some(2), ..sample() };
    let continuation = Sample { reply_after: Some(1), ..sample() };
    let reply = Sample { policy: vec![(5, 1.0)], ..sample() };
    let samples = [mover.clone(), continuation, reply];
    let records = Records::parse(Records::encode_all(&samples).unwrap(), 3).unwrap();
    let indices: Vec<u8> = records.get(0).policy().map(|(index, _)| index).collect();
    assert_eq!(indices, [3, 90], "the policy after the reply's byte");
    assert_eq!(records.get(0).reply_after(), Some(2));
    assert_eq!(records.reply(0).unwrap().policy().collect::<Vec<_>>(), [(5, 1.0)]);
    assert_eq!(records.reply(1).unwrap().to_sample(), records.get(2).to_sample());
    assert!(records.reply(2).is_none());
    assert_eq!(
        records.heap_bytes(),
        2 * (FIXED_BYTES + 1 + 2 * ENTRY_BYTES) + FIXED_BYTES + ENTRY_BYTES + 3 * 4
    );
    let past = Records::encode_all(&samples[..2]).unwrap();
    assert_eq!(Records::parse(past, 2).unwrap_err(), (0, RecordError::ReplyOutside { after: 2 }));
    let zero = Records::encode_all(&[Sample { reply_after: Some(0), ..sample() }]).unwrap();
    assert_eq!(Records::parse(zero, 1).unwrap_err(), (0, RecordError::ReplyOutside { after: 0 }));
}

#[test]
fn unwritable_samples_are_named() {
    let mut s = sample();
    s.policy.push((3, 0.0));
    assert_eq!(
        Records::encode_all(&[sample(), s]).unwrap_err(),
        (1, RecordError::DuplicateIndex { index: 3 })
    );
    let mut s = sample();
    s.search_value = f32::NAN;
    assert_eq!(Records::encode_all(&[s]).unwrap_err().0, 0);
}

#[test]
fn malformed_records_are_refused() {
    let good = Records::encode_all(&[sample()]).unwrap();
    let mut both_sides = good.clone();
    both_sides[4..8].copy_from_slice(&1u32.to_le_bytes()); // white on a black square
    assert!(Records::parse(both_sides, 1).is_err());
    let mut unordered = good.clone();
    unordered[27] = 100;
    assert!(Records::parse(unordered, 1).is_err());
    assert!(Records::parse(good[..good.len() - 1].to_vec(), 1).is_err());
    assert!(Records::parse(good.clone(), 0).is_err());
}
