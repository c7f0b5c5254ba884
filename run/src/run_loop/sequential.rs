//! The sequential run (`run.mode = "sequential"`): each generation, self-play with the best net,
//! then training on the new data, then the gate of the new candidate, and the anchors of `[eval]`
//! after a promotion, one after the other on all the cores.

use super::{figures, phase_seed, step_limit, Parts};
use crate::budget::{exhausted, games_for_phase, share_spent};
use crate::budget::{Progress, Spent};
use crate::gate::anchors;
use crate::gate::candidate::{gate, last_gated_step};
use crate::run_state::ensure_best;
use crate::selfplay::{play_games, Batch, GameSetup, PlayingNet};
use crate::train::follow::{endgame_line, report_refresh, train_paid_steps};
use anyhow::Result;
use progress::interrupt;
use runconfig::RunConfig;
use rundata::{layout, BestNet, CachedRun, RunDirError};
use train::{TbLogger, Trainer};

/// Runs generation after generation until the budget is spent or Ctrl-C stops the run.
pub(super) fn run_generations(parts: Parts) -> Result<()> {
    let Parts { cached, config, setup, trainer, progress } = parts;
    let tb = TbLogger::create(&cached.run().tb_dir().join("run"))?;
    let mut run = Sequential { cached, config, setup, trainer, progress, tb };
    loop {
        let best = ensure_best(cached, config)?;
        if interrupt::requested() {
            println!("stopped by an interrupt; run the same command again to resume");
            break;
        }
        // The newest candidate is gated before anything else (also after a resume).
        let step = run.trainer.step();
        if step > last_gated_step(cached)?.max(best.step) {
            run.ensure_candidate()?;
            gate(cached, config, run.setup.tables.clone(), step, &best, &mut run.tb)?;
            continue;
        }
        let spent = run.progress.spent();
        let limit = exhausted(&config.budget, &spent, run.trainer.step());
        run.rate_against_anchors(&best, limit.is_some(), spent)?;
        if let Some(limit) = limit {
            println!("budget reached: {limit}");
            break;
        }
        run.self_play(best, &spent)?;
        run.train_on_new_games()?;
        run.progress.save()?;
    }
    run.progress.save()
}

/// The sequential run's parts as one generation uses them.
struct Sequential<'a> {
    cached: &'a CachedRun,
    config: &'a RunConfig,
    setup: GameSetup,
    trainer: Trainer,
    progress: Progress,
    tb: TbLogger,
}

impl Sequential<'_> {
    /// Puts back the trainer's candidate of its current step when its file is gone from the
    /// store (a run moved with its training state but not its candidates, or stopped between
    /// writing the state and uploading the net): the state holds the same weights.
    fn ensure_candidate(&mut self) -> Result<()> {
        let path = train::candidate_path(&self.cached.run().nets_dir(), self.trainer.step());
        let stored = match self.cached.key_of(&path) {
            Some(key) => match self.cached.fetch(&key) {
                Ok(path) => path.is_file(),
                Err(RunDirError::Missing { .. }) => false,
                Err(error) => return Err(error.into()),
            },
            None => path.is_file(),
        };
        if !stored {
            self.trainer.save_candidate()?;
            self.cached.publish_new(layout::NETS)?;
            println!(
                "note: the candidate of step {} was gone; written again from the training state",
                self.trainer.step()
            );
        }
        Ok(())
    }

    /// The best net against the fixed anchors: when due, and for the final net (`last`).
    fn rate_against_anchors(&mut self, best: &BestNet, last: bool, spent: Spent) -> Result<()> {
        let (cached, config) = (self.cached, self.config);
        let opponents = anchors::due(cached, config, best, last, Some(spent.wall_seconds))?;
        if !opponents.is_empty() {
            let tables = self.setup.tables.clone();
            let spent = Some(spent);
            anchors::evaluate(cached, config, tables, best, &opponents, spent, &mut self.tb)?;
            self.progress.save()?;
        }
        Ok(())
    }

    /// One generation's self-play with the best net: a batch of games, on all the cores.
    fn self_play(&mut self, best: BestNet, spent: &Spent) -> Result<()> {
        let (cached, config) = (self.cached, self.config);
        let generation = best.generation;
        println!("generation {generation}: self-play with {}", best.checkpoint.display());
        let batch = Batch {
            games: games_for_phase(&config.budget, spent),
            seed: phase_seed(config.seed, spent.games),
        };
        model::configure_cpu_threads(config.cpu_threads, config.selfplay.forward_threads());
        let playing = PlayingNet::new(cached, config, best)?;
        let progress = &mut self.progress;
        let report = play_games(
            cached,
            config,
            &self.setup,
            &playing,
            &batch,
            None,
            &interrupt::requested,
            |written| progress.add_games(written),
        )?;
        self.tb.selfplay(self.trainer.step(), &figures(&report.totals))?;
        println!("  {}", report.totals.describe());
        Ok(())
    }

    /// Trains the steps the new games pay for, with a checkpoint (the next gate's candidate)
    /// when there were any.
    fn train_on_new_games(&mut self) -> Result<()> {
        let (config, trainer) = (self.config, &mut self.trainer);
        model::configure_cpu_threads(config.cpu_threads, 1);
        report_refresh(&trainer.refresh()?);
        trainer.set_budget_spent(share_spent(
            &config.budget,
            &self.progress.spent(),
            trainer.step(),
        ));
        let trained = train_paid_steps(trainer, step_limit(config))?;
        if trained > 0 {
            trainer.checkpoint()?;
            if let Some(line) = endgame_line(trainer) {
                println!("  {line}");
            }
            println!(
                "  trained to step {} ({} positions in the window, {:.2} samples trained per position; learning rate {:.4})",
                trainer.step(),
                trainer.replay().len(),
                trainer.reuse(),
                trainer.learning_rate()
            );
        } else {
            println!(
                "  collecting data: {} of {} positions before training starts",
                trainer.replay().len(),
                trainer.positions_needed()
            );
        }
        Ok(())
    }
}
