//! An inference server: one thread owns an evaluator (a net on its device) and answers the
//! evaluations of many searches at once, merging the requests that wait into one batch (one
//! forward pass). Searches on separate threads (the games of a match or a gate) so share batches
//! the way one self-play worker's games do, instead of each running its few leaves alone. A
//! failed batch is an error for every search that waited on it, and the server goes on serving.
//!
//! While the server evaluates one batch the others queue up, so batches grow by themselves with
//! the number of searches; `max_batch` caps them. The evaluator can be replaced while serving
//! ([`InferenceServer::replace`], e.g. a promoted net): batches after the call use the new one.

use crate::evaluator::{BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// The requests of one search, and where their answers go.
struct Job {
    requests: Vec<EvalRequest>,
    reply: mpsc::SyncSender<Result<Vec<Evaluation>, EvalError>>,
}

/// What the clients and the server thread share.
#[derive(Default)]
struct Queue {
    jobs: Vec<Job>,
    /// An evaluator to use from the next batch on.
    replacement: Option<BoxedEvaluator>,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    max_batch: usize,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The server: its thread lives until the server is dropped.
pub struct InferenceServer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl InferenceServer {
    /// Starts a server thread over `evaluator`, merging waiting requests into batches of at most
    /// `max_batch` positions (a single search's larger call still runs whole).
    pub fn start(evaluator: BoxedEvaluator, max_batch: usize) -> InferenceServer {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            max_batch: max_batch.max(1),
        });
        let serving = shared.clone();
        let thread = std::thread::Builder::new()
            .name("inference-server".into())
            .spawn(move || serve(&serving, evaluator))
            .expect("the inference server thread starts");
        InferenceServer { shared, thread: Some(thread) }
    }

    /// An evaluator that sends its requests to this server (one per search; cheap to make).
    pub fn client(&self) -> ServerClient {
        ServerClient { shared: self.shared.clone() }
    }

    /// Evaluates with `evaluator` from the next batch on.
    pub fn replace(&self, evaluator: BoxedEvaluator) {
        self.shared.lock().replacement = Some(evaluator);
        self.shared.wake.notify_one();
    }
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The server thread: waits for jobs, evaluates them in batches, answers each job.
fn serve(shared: &Shared, mut evaluator: BoxedEvaluator) {
    loop {
        let (jobs, replacement) = {
            let mut queue = shared.lock();
            while queue.jobs.is_empty() && queue.replacement.is_none() && !queue.closed {
                queue = shared.wake.wait(queue).unwrap_or_else(PoisonError::into_inner);
            }
            if queue.jobs.is_empty() && queue.closed {
                return;
            }
            (take_batch(&mut queue.jobs, shared.max_batch), queue.replacement.take())
        };
        if let Some(replacement) = replacement {
            evaluator = replacement;
        }
        if jobs.is_empty() {
            continue;
        }
        let requests: Vec<EvalRequest> =
            jobs.iter().flat_map(|job| job.requests.iter().cloned()).collect();
        match evaluator.evaluate(&requests) {
            Ok(answers) => {
                let mut answers = answers.into_iter();
                for job in jobs {
                    let answer = answers.by_ref().take(job.requests.len()).collect();
                    // A client that gave up (its thread ended) no longer listens.
                    let _ = job.reply.send(Ok(answer));
                }
            }
            Err(error) => jobs.iter().for_each(|job| drop(job.reply.send(Err(error.clone())))),
        }
    }
}

/// The oldest jobs whose requests fit in `max_batch` (at least one job), removed from `jobs`.
fn take_batch(jobs: &mut Vec<Job>, max_batch: usize) -> Vec<Job> {
    let mut positions = 0;
    let count = jobs
        .iter()
        .take_while(|job| {
            positions += job.requests.len();
            positions <= max_batch
        })
        .count()
        .max(1)
        .min(jobs.len());
    jobs.drain(..count).collect()
}

/// A search's handle on an [`InferenceServer`]: evaluates by sending its requests to the server
/// and waiting for the answers.
pub struct ServerClient {
    shared: Arc<Shared>,
}

impl Evaluator for ServerClient {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = mpsc::sync_channel(1);
        self.shared.lock().jobs.push(Job { requests: requests.to_vec(), reply });
        self.shared.wake.notify_one();
        answer.recv().unwrap_or_else(|_| {
            Err(EvalError::new(requests.len(), "the inference server stopped (it panicked)"))
        })
    }
}

#[cfg(test)]
mod tests {
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
                    let h =
                        u64::from(p.occupied().0).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.salt;
                    Evaluation {
                        priors: r.legal_steps.iter().map(|_| 1.0).collect::<Priors>(),
                        value: (h % 1000) as f32 / 1000.0 - 0.5,
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
            out.push(EvalRequest {
                observation: game.observation(),
                legal_steps: turn.legal_steps(),
            });
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
        server.replace(Box::new(second));
        let after = server.client().evaluate(&batch).unwrap();
        let (mut direct, ..) = hashing(4);
        assert_ne!(before, after);
        assert_eq!(after, direct.evaluate(&batch).unwrap());
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
}
