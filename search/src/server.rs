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
mod tests;
