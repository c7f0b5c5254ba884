//! An inference server: server threads, each owning an evaluator (a copy of a net on its device),
//! answer the evaluations of many searches at once, merging the requests that wait into one batch
//! (one forward pass). Searches on separate threads (the games of a match or a gate, the workers
//! of self-play) so share batches instead of each running its few leaves alone. A failed batch is
//! an error for every search that waited on it, and the server goes on serving.
//!
//! While a server thread evaluates one batch the others queue up, so batches grow by themselves
//! with the number of searches; [`Batching::max_batch`] caps them. With [`Batching::max_wait`] a
//! thread waits that long for a batch to fill, unless every client is already waiting for
//! answers. Several threads overlap one batch's host work (encoding, decoding, the searches'
//! waiting) with another's forward pass on the device. The evaluators can be replaced while
//! serving ([`InferenceServer::replace`], e.g. a promoted net): batches taken after the call use
//! the new ones.

use crate::evaluator::{BoxedEvaluator, EvalError, EvalRequest, Evaluation, Evaluator};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a server forms its batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    /// The most positions in one batch (a single search's larger call still runs whole).
    pub max_batch: usize,
    /// How long a batch may wait for more requests before it runs (zero: at once). A batch runs
    /// without waiting once it is full or every client is waiting for answers.
    pub max_wait: Duration,
}

/// The requests of one search, and where their answers go.
struct Job {
    requests: Vec<EvalRequest>,
    queued_at: Instant,
    reply: mpsc::SyncSender<Result<Vec<Evaluation>, EvalError>>,
}

/// What the clients and the server threads share.
#[derive(Default)]
struct Queue {
    jobs: Vec<Job>,
    /// For each server thread, an evaluator to use from its next batch on.
    replacements: Vec<Option<BoxedEvaluator>>,
    /// Clients alive, and those of them with a job queued or being evaluated.
    clients: usize,
    waiting: usize,
    closed: bool,
    /// Batches taken and the positions in them, over all server threads.
    served: Served,
}

impl Queue {
    /// Whether the queued jobs should run now rather than wait for more.
    fn ready(&self, batching: &Batching) -> bool {
        let positions: usize = self.jobs.iter().map(|job| job.requests.len()).sum();
        let oldest = self.jobs.first().map_or(Duration::ZERO, |job| job.queued_at.elapsed());
        positions >= batching.max_batch
            || self.waiting >= self.clients
            || oldest >= batching.max_wait
            || self.closed
    }
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    batching: Batching,
}

/// What a server has evaluated so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// Batches run (forward passes).
    pub batches: u64,
    /// Positions in them.
    pub positions: u64,
}

impl Served {
    /// Positions per batch.
    pub fn mean_batch(&self) -> f64 {
        self.positions as f64 / self.batches.max(1) as f64
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The server: its threads live until the server is dropped.
pub struct InferenceServer {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl InferenceServer {
    /// One server thread over `evaluator`, running what waits at once in batches of at most
    /// `max_batch` positions.
    pub fn start(evaluator: BoxedEvaluator, max_batch: usize) -> InferenceServer {
        let batching = Batching { max_batch, max_wait: Duration::ZERO };
        InferenceServer::start_threads(vec![evaluator], batching)
    }

    /// One server thread per evaluator in `evaluators` (at least one), all taking batches from
    /// the same queue as `batching` says.
    pub fn start_threads(evaluators: Vec<BoxedEvaluator>, batching: Batching) -> InferenceServer {
        assert!(!evaluators.is_empty(), "an inference server needs an evaluator");
        let batching = Batching { max_batch: batching.max_batch.max(1), ..batching };
        let queue =
            Queue { replacements: evaluators.iter().map(|_| None).collect(), ..Queue::default() };
        let shared = Arc::new(Shared { queue: Mutex::new(queue), wake: Condvar::new(), batching });
        let threads = evaluators
            .into_iter()
            .enumerate()
            .map(|(index, evaluator)| {
                let serving = shared.clone();
                std::thread::Builder::new()
                    .name(format!("inference-server-{index}"))
                    .spawn(move || serve(&serving, index, evaluator))
                    .expect("an inference server thread starts")
            })
            .collect();
        InferenceServer { shared, threads }
    }

    /// What it has evaluated so far.
    pub fn served(&self) -> Served {
        self.shared.lock().served
    }

    /// Its server threads (one evaluator each).
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// An evaluator that sends its requests to this server (one per search; cheap to make).
    pub fn client(&self) -> ServerClient {
        self.shared.lock().clients += 1;
        ServerClient { shared: self.shared.clone() }
    }

    /// Evaluates with `evaluators` (one per server thread, in order; extra ones are dropped) from
    /// each thread's next batch on: a request sent after this call is answered by them.
    pub fn replace(&self, evaluators: Vec<BoxedEvaluator>) {
        let mut queue = self.shared.lock();
        for (slot, evaluator) in queue.replacements.iter_mut().zip(evaluators) {
            *slot = Some(evaluator);
        }
        drop(queue);
        self.shared.wake.notify_all();
    }
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A server thread: waits for jobs, evaluates them in batches, answers each job.
fn serve(shared: &Shared, index: usize, mut evaluator: BoxedEvaluator) {
    loop {
        let jobs = {
            let mut queue = shared.lock();
            loop {
                if let Some(replacement) = queue.replacements[index].take() {
                    evaluator = replacement;
                }
                if queue.jobs.is_empty() {
                    if queue.closed {
                        return;
                    }
                    queue = shared.wake.wait(queue).unwrap_or_else(PoisonError::into_inner);
                } else if queue.ready(&shared.batching) {
                    break;
                } else {
                    let waited = queue.jobs[0].queued_at.elapsed();
                    let left = shared.batching.max_wait.saturating_sub(waited);
                    queue = shared
                        .wake
                        .wait_timeout(queue, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
            let jobs = take_batch(&mut queue.jobs, shared.batching.max_batch);
            queue.served.batches += 1;
            queue.served.positions += jobs.iter().map(|job| job.requests.len() as u64).sum::<u64>();
            if !queue.jobs.is_empty() {
                shared.wake.notify_one();
            }
            jobs
        };
        let requests: Vec<EvalRequest> =
            jobs.iter().flat_map(|job| job.requests.iter().cloned()).collect();
        let answered = jobs.len();
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
        shared.lock().waiting -= answered;
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
        let job = Job { requests: requests.to_vec(), queued_at: Instant::now(), reply };
        let mut queue = self.shared.lock();
        queue.jobs.push(job);
        queue.waiting += 1;
        drop(queue);
        self.shared.wake.notify_one();
        answer.recv().unwrap_or_else(|_| {
            Err(EvalError::new(requests.len(), "the inference server stopped (it panicked)"))
        })
    }
}

impl Drop for ServerClient {
    fn drop(&mut self) {
        self.shared.lock().clients -= 1;
        // A batch waiting for this client's requests need not wait any more.
        self.shared.wake.notify_all();
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
}
