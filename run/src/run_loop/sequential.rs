//! The sequential run (`run.mode = "sequential"`): each generation, self-play with the best net,
//! then training on the new data, then the gate of the new candidate, and the anchors of `[eval]`
//! after a promotion, one after the other on all the cores.

use super::{figures, phase_seed, step_limit, Parts};
use crate::budget::{exhausted, games_for_phase, share_spent};
use crate::gate::anchors;
use crate::gate::candidate::{gate, last_gated_step};
use crate::interrupt;
use crate::run_state::ensure_best;
use crate::selfplay::{play_games, Batch, PlayingNet};
use crate::train::follow::{endgame_line, train_paid_steps, warn_damaged};
use anyhow::Result;
use train::TbLogger;

pub(super) fn run(parts: Parts) -> Result<()> {
    let Parts { cached, config, tables, mut trainer, mut progress } = parts;
    let run = cached.run();
    let mut tb = TbLogger::create(&run.tb_dir().join("run"))?;
    loop {
        let best = ensure_best(cached, config)?;
        if interrupt::requested() {
            println!("stopped by Ctrl-C; run the same command again to resume");
            break;
        }
        // The newest candidate is gated before anything else (also after a resume).
        if trainer.step() > last_gated_step(cached)?.max(best.step) {
            gate(cached, config, tables.clone(), trainer.step(), &best, &mut tb)?;
            continue;
        }
        let spent = progress.spent();
        let limit = exhausted(&config.budget, &spent, trainer.step());
        // The best net against the fixed anchors: when due, and for the final net.
        let run_seconds = Some(spent.wall_seconds);
        let opponents = anchors::due(cached, config, &best, limit.is_some(), run_seconds)?;
        if !opponents.is_empty() {
            anchors::evaluate(
                cached,
                config,
                tables.clone(),
                &best,
                &opponents,
                run_seconds,
                &mut tb,
            )?;
            progress.save()?;
        }
        if let Some(limit) = limit {
            println!("budget reached: {limit}");
            break;
        }
        let generation = best.generation;
        println!("generation {generation}: self-play with {}", best.checkpoint.display());
        let batch = Batch {
            games: games_for_phase(&config.budget, &spent),
            seed: phase_seed(config.seed, spent.games),
        };
        model::configure_cpu_threads(config.cpu_threads, config.selfplay.forward_threads());
        let playing = PlayingNet::new(cached, config, best)?;
        let report = play_games(
            cached,
            config,
            tables.clone(),
            &playing,
            &batch,
            None,
            &interrupt::requested,
            |written| progress.add_games(written),
        )?;
        tb.selfplay(trainer.step(), &figures(&report.totals))?;
        println!("  {}", report.totals.describe());
        model::configure_cpu_threads(config.cpu_threads, 1);
        warn_damaged(&trainer.refresh()?);
        trainer.set_budget_spent(share_spent(&config.budget, &progress.spent(), trainer.step()));
        let trained = train_paid_steps(&mut trainer, step_limit(config))?;
        if trained > 0 {
            trainer.checkpoint()?;
            if let Some(line) = endgame_line(&mut trainer) {
                println!("  {line}");
            }
            println!(
                "  trained to step {} ({} positions in the window, {:.2} samples trained per position)",
                trainer.step(),
                trainer.replay().len(),
                trainer.reuse()
            );
        } else {
            println!(
                "  collecting data: {} of {} positions before training starts",
                trainer.replay().len(),
                trainer.config().min_positions
            );
        }
        progress.save()?;
    }
    progress.save()
}
