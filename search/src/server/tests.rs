//! The inference server's tests: batches shared, answers routed to their searches, waits bounded,
//! failures told.

use super::*;
use crate::evaluator::Priors;
use draughts::{Game, Position, Turn};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Answers from the position alone, and counts its calls and the largest batch.
struct Hashing {
    calls: Arc<AtomicUsize>,
    largest: Arc<AtomicUsize>,
    salt: u64,
}

impl Evaluator for Hashing {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.largest.fetch_max(requests.len(), Ordering::Relaxed);
        if requests.len() > 1000 {
            return Err(EvalError::new(requests.len(), "out of memory (a test's)"));
        }
        Ok(requests
            .iter()
            .map(|r| {
                let p = r.observation.position;
                let h = u64::from(p.occupied().0).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.salt;
                Evaluation {
                    priors: r.legal_steps.iter().map(|_| 1.0).collect::<Priors>(),
                    value: (h % 1000) as f32 / 1000.0 - 0.5,
                    draw: 0.0,
                }
            })
            .collect())
    }
}

fn hashing(salt: u64) -> (Hashing, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let (calls, largest) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    (Hashing { calls: calls.clone(), largest: largest.clone(), salt }, calls, largest)
}

/// `n` distinct positions' requests (random games' positions).
fn requests(n: usize) -> Vec<EvalRequest> {
    let mut game = Game::new(Position::start(), Default::default());
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < n {
        if game.outcome().is_some() {
            game = Game::new(Position::start(), Default::default());
        }
        let turn = Turn::new(*game.position());
        out.push(EvalRequest { observation: game.observation(), legal_steps: turn.legal_steps() });
        let moves = game.position().legal_moves();
        game.play(moves[i % moves.len()]).unwrap();
        i += 7;
    }
    out
}

#[test]
fn a_client_gets_exactly_what_the_evaluator_gives_for_the_same_requests() {
    let batch = requests(40);
    let (mut direct, ..) = hashing(1);
    let (served, ..) = hashing(1);
    let server = InferenceServer::start(Box::new(served), 256);
    assert_eq!(server.client().evaluate(&batch).unwrap(), direct.evaluate(&batch).unwrap());
    assert!(server.client().evaluate(&[]).unwrap().is_empty());
}

#[test]
fn many_searches_share_batches_and_each_gets_its_own_answers() {
    let all = requests(64 * 8);
    let (mut direct, ..) = hashing(2);
    let expected = direct.evaluate(&all).unwrap();
    let (served, calls, largest) = hashing(2);
    let server = InferenceServer::start(Box::new(served), 64);
    std::thread::scope(|scope| {
        for (chunk, answers) in all.chunks(8).zip(expected.chunks(8)) {
            let mut client = server.client();
            scope.spawn(move || assert_eq!(client.evaluate(chunk).unwrap(), answers));
        }
    });
    let calls = calls.load(Ordering::Relaxed);
    assert!(calls < 64, "{calls} forward passes for 64 searches: no batch was shared");
    assert!(largest.load(Ordering::Relaxed) <= 64, "a batch over max_batch");
}

#[test]
fn a_replaced_evaluator_answers_the_next_batches() {
    let batch = requests(5);
    let (first, ..) = hashing(3);
    let (second, ..) = hashing(4);
    let server = InferenceServer::start(Box::new(first), 16);
    let before = server.client().evaluate(&batch).unwrap();
    server.replace(vec![Box::new(second)]);
    let after = server.client().evaluate(&batch).unwrap();
    let (mut direct, ..) = hashing(4);
    assert_ne!(before, after);
    assert_eq!(after, direct.evaluate(&batch).unwrap());
}

#[test]
fn several_server_threads_answer_every_search_with_its_own_answers() {
    let all = requests(48 * 8);
    let (mut direct, ..) = hashing(6);
    let expected = direct.evaluate(&all).unwrap();
    let (calls, largest) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let evaluators: Vec<BoxedEvaluator> = (0..3)
        .map(|_| {
            let served = Hashing { calls: calls.clone(), largest: largest.clone(), salt: 6 };
            Box::new(served) as BoxedEvaluator
        })
        .collect();
    let batching = Batching { max_batch: 32, max_wait: Duration::from_millis(2) };
    let server = InferenceServer::start_threads(evaluators, batching);
    assert_eq!(server.threads(), 3);
    std::thread::scope(|scope| {
        for (chunk, answers) in all.chunks(8).zip(expected.chunks(8)) {
            let mut client = server.client();
            scope.spawn(move || {
                for _ in 0..3 {
                    assert_eq!(client.evaluate(chunk).unwrap(), answers);
                }
            });
        }
    });
    assert!(largest.load(Ordering::Relaxed) <= 32, "a batch over max_batch");
    let served = server.served();
    assert_eq!(served.positions, 48 * 8 * 3);
    assert_eq!(served.batches, calls.load(Ordering::Relaxed) as u64);
}

#[test]
fn a_batch_waits_for_every_client_but_no_longer_than_max_wait() {
    let (served, calls, largest) = hashing(7);
    let batching = Batching { max_batch: 1000, max_wait: Duration::from_secs(30) };
    let server = InferenceServer::start_threads(vec![Box::new(served)], batching);
    // Four clients sending one after the other: one batch, run once the fourth is in (long
    // before the 30 s are up).
    let clients: Vec<ServerClient> = (0..4).map(|_| server.client()).collect();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for (i, mut client) in clients.into_iter().enumerate() {
            scope.spawn(move || {
                std::thread::sleep(Duration::from_millis(20 * i as u64));
                assert_eq!(client.evaluate(&requests(5)).unwrap().len(), 5);
            });
        }
    });
    assert!(started.elapsed() < Duration::from_secs(10), "the batch waited for max_wait");
    assert_eq!(calls.load(Ordering::Relaxed), 1);
    assert_eq!(largest.load(Ordering::Relaxed), 20);

    // A client that sends nothing holds a batch back for max_wait at most.
    let (served, ..) = hashing(8);
    let batching = Batching { max_batch: 1000, max_wait: Duration::from_millis(150) };
    let server = InferenceServer::start_threads(vec![Box::new(served)], batching);
    let _silent = server.client();
    let started = Instant::now();
    assert_eq!(server.client().evaluate(&requests(3)).unwrap().len(), 3);
    assert!(started.elapsed() >= Duration::from_millis(150), "it did not wait");
}

#[test]
fn a_failed_batch_is_an_error_for_its_searches_and_the_server_goes_on() {
    let (evaluator, ..) = hashing(5);
    let server = InferenceServer::start(Box::new(evaluator), 2000);
    let err = server.client().evaluate(&requests(1001)).unwrap_err();
    assert_eq!(err.batch, 1001);
    assert!(support::one_line(&err).contains("out of memory (a test's)"), "{err}");
    assert_eq!(server.client().evaluate(&requests(3)).unwrap().len(), 3);
}
