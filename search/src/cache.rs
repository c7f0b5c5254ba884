//! An evaluation cache (Leela Chess Zero's NN cache): a request whose observation was evaluated
//! before is answered from the cache, and only the others go to the net. Positions recur across
//! the move orders inside one search tree (the tree does not merge transpositions), across the
//! moves of a game, and across games from the same start (self-play's openings, a ballot played
//! with both colours). The net's answer depends on the observation alone (the legal steps follow
//! from it), so a hit is the answer the net gave.
//!
//! Bounded: two generations of at most half the capacity each. When the newer one is full the
//! older one is dropped, and a hit in the older one moves up, so what was used lately stays.

use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use draughts::Observation;
use std::collections::HashMap;

/// The evaluations a self-play worker or a player's net keeps by default (about 30 MB).
pub const DEFAULT_EVAL_CACHE: usize = 1 << 17;

/// An evaluator that answers repeated observations from a cache and passes the rest on.
pub struct CachedEvaluator<E> {
    inner: E,
    generation_capacity: usize,
    newer: HashMap<Observation, Evaluation>,
    older: HashMap<Observation, Evaluation>,
    /// The requests of the current batch the cache could not answer (kept across calls).
    misses: Vec<EvalRequest>,
    stats: CacheStats,
}

/// How often the cache answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests seen.
    pub lookups: u64,
    /// Requests answered from the cache.
    pub hits: u64,
}

impl<E: Evaluator> CachedEvaluator<E> {
    /// A cache of at most `capacity` evaluations in front of `inner` (below 2: no cache, every
    /// request goes to `inner`).
    pub fn new(inner: E, capacity: usize) -> CachedEvaluator<E> {
        CachedEvaluator {
            inner,
            generation_capacity: capacity / 2,
            newer: HashMap::new(),
            older: HashMap::new(),
            misses: Vec::new(),
            stats: CacheStats::default(),
        }
    }

    /// How often the cache answered so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    fn lookup(&mut self, observation: &Observation) -> Option<Evaluation> {
        if let Some(found) = self.newer.get(observation) {
            return Some(found.clone());
        }
        let found = self.older.remove(observation)?;
        self.insert(*observation, found.clone());
        Some(found)
    }

    fn insert(&mut self, observation: Observation, evaluation: Evaluation) {
        if self.newer.len() >= self.generation_capacity {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(observation, evaluation);
    }
}

impl<E: Evaluator> Evaluator for CachedEvaluator<E> {
    fn evaluate(&mut self, requests: &[EvalRequest]) -> Result<Vec<Evaluation>, EvalError> {
        if self.generation_capacity == 0 {
            return self.inner.evaluate(requests);
        }
        let mut answers: Vec<Option<Evaluation>> =
            requests.iter().map(|request| self.lookup(&request.observation)).collect();
        self.misses.clear();
        self.misses.extend(
            requests.iter().zip(&answers).filter(|(_, a)| a.is_none()).map(|(r, _)| r.clone()),
        );
        self.stats.lookups += requests.len() as u64;
        self.stats.hits += (requests.len() - self.misses.len()) as u64;
        if !self.misses.is_empty() {
            let evaluated = self.inner.evaluate(&self.misses)?;
            let misses = std::mem::take(&mut self.misses);
            let mut evaluated = misses.iter().zip(evaluated);
            for answer in answers.iter_mut().filter(|a| a.is_none()) {
                let (request, evaluation) = evaluated.next().expect("one answer per miss");
                self.insert(request.observation, evaluation.clone());
                *answer = Some(evaluation);
            }
            self.misses = misses;
        }
        Ok(answers.into_iter().map(|a| a.expect("every request answered")).collect())
    }

    fn answered_from_cache(&self) -> u64 {
        self.stats.hits
    }

    fn leaf_evaluator(&mut self) -> Option<Box<dyn crate::alphabeta::LeafEvaluator>> {
        self.inner.leaf_evaluator()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ScriptedEvaluator, UniformEvaluator};
    use draughts::{Game, Position, Turn};

    /// The requests of the start and the positions after each of the first `plies - 1` moves.
    fn requests(plies: usize) -> Vec<EvalRequest> {
        let mut game = Game::new(Position::start(), Default::default());
        let mut out = Vec::new();
        for _ in 0..plies {
            let turn = Turn::new(*game.position());
            out.push(EvalRequest {
                observation: game.observation(),
                legal_steps: turn.legal_steps(),
            });
            game.play(game.position().legal_moves()[0]).unwrap();
        }
        out
    }

    #[test]
    fn hits_answer_what_the_net_answered_and_only_misses_reach_it() {
        let net = ScriptedEvaluator::new();
        let mut cached = CachedEvaluator::new(net, 100);
        let batch = requests(6);
        let first = cached.evaluate(&batch[..4]).unwrap();
        // Two seen, two new: the net sees the new two only.
        let second = cached.evaluate(&batch[2..]).unwrap();
        assert_eq!(first[2..], second[..2]);
        assert_eq!(second, ScriptedEvaluator::new().evaluate(&batch[2..]).unwrap());
        assert_eq!(cached.inner.requests, 6);
        assert_eq!(cached.stats(), CacheStats { lookups: 8, hits: 2 });
    }

    #[test]
    fn a_cache_of_no_capacity_sends_everything_to_the_net() {
        let mut cached = CachedEvaluator::new(ScriptedEvaluator::new(), 0);
        let batch = requests(3);
        cached.evaluate(&batch).unwrap();
        cached.evaluate(&batch).unwrap();
        assert_eq!((cached.inner.requests, cached.answered_from_cache()), (6, 0));
    }

    #[test]
    fn the_cache_stays_within_its_capacity_and_keeps_what_was_used_lately() {
        let mut cached = CachedEvaluator::new(UniformEvaluator, 4);
        let batch = requests(8);
        for request in &batch {
            cached.evaluate(std::slice::from_ref(request)).unwrap();
            // A hit on the first request each time keeps it.
            cached.evaluate(&batch[..1]).unwrap();
            assert!(cached.newer.len() + cached.older.len() <= 4);
        }
        let before = cached.stats().hits;
        cached.evaluate(&batch[..1]).unwrap();
        assert_eq!(cached.stats().hits, before + 1, "the request used lately is still there");
        let before = cached.stats().hits;
        cached.evaluate(&batch[1..2]).unwrap();
        assert_eq!(cached.stats().hits, before, "an old one is gone");
    }
}
