//! The memory budget of a `serve` process: what its games, analyses and engines may hold at
//! worst, together. Each reserves its worst case before it is made (a game: its player's search
//! at its ceiling and its record; an analysis: its player's search under the budget it asks; an
//! engine: its net), and gives it back when it is dropped; a reservation that would pass the
//! budget is refused with an error naming the limit and the setting that raises it.

use arena::{AlphaBetaPlayer, NetOptions, PlayerSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The budget when neither `--max-memory-mb` nor [`BUDGET_VAR`] sets one, in MiB.
pub const DEFAULT_BUDGET_MB: u64 = 512;
/// The environment variable that sets the budget, in MiB (`--max-memory-mb` wins over it).
pub const BUDGET_VAR: &str = "CHECKERS_ZERO_MAX_SERVE_MB";
/// Bytes of an MCTS tree node with its edges and its arena's spare room, as measured for the
/// search's node ceiling (docs/reliability.md).
const NODE_BYTES: u64 = search::NODE_BYTES as u64;
/// One search under a clock may fill this share of the budget with its tree (see
/// [`fit_tree_ceiling`]): a quarter, so that four such games or analyses fit at once.
const CLOCKED_TREE_SHARE: u64 = 4;
/// The evaluation cache a libtorch net keeps in front of its inference server (2^17
/// evaluations); a sparse net keeps none.
const NET_CACHE_BYTES: u64 = 32 << 20;
/// What an analysis holds besides its player's search: the request (PDN text up to 256 KiB,
/// as JSON), its game's positions and the result it builds, a position at a time.
const ANALYSIS_BYTES: u64 = 4 << 20;

/// The budget `--max-memory-mb` gives (`flag`), else [`BUDGET_VAR`], else the default; in bytes.
pub fn budget_bytes(flag: Option<u64>) -> anyhow::Result<u64> {
    let mb = match (flag, std::env::var(BUDGET_VAR)) {
        (Some(mb), _) => mb,
        (None, Ok(text)) => text.trim().parse().ok().filter(|&mb| mb >= 1).ok_or_else(|| {
            anyhow::anyhow!(
                "{BUDGET_VAR}=`{}`: not a whole number of MiB from 1",
                support::shown(&text)
            )
        })?,
        (None, Err(_)) => DEFAULT_BUDGET_MB,
    };
    Ok(mb.saturating_mul(1 << 20))
}

/// Lowers the node ceiling of this process's searches, unless [`search::MAX_TREE_NODES_VAR`]
/// sets it, so that a search under a clock, its tree twice over while it keeps a subtree, fills
/// at most a quarter of `budget` bytes: such a search ends early and plays its move when its tree
/// is full, so that `serve --time S` and analyses with `seconds` fit the default budget.
pub fn fit_tree_ceiling(budget: u64) {
    if !search::tree_node_limit_is_configured() {
        search::lower_tree_node_limit((budget / CLOCKED_TREE_SHARE / (2 * NODE_BYTES)) as usize);
    }
}

/// A budget and what is reserved of it.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    used: AtomicU64,
}

/// What one game, analysis or engine reserved; given back when dropped.
#[derive(Debug)]
pub struct Share {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// A reservation refused: it would pass the budget.
#[derive(Debug)]
pub struct OverBudget {
    what: String,
    bytes: u64,
    used: u64,
    limit: u64,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let beside = if self.used == 0 {
            String::new()
        } else {
            format!(", beside {} the server holds already,", mib(self.used))
        };
        write!(
            f,
            "{} may hold up to {}{beside} more than the server's {} memory budget allows; \
             raise the limit with serve --max-memory-mb MIB or {BUDGET_VAR}=MIB",
            self.what,
            mib(self.bytes),
            mib(self.limit)
        )
    }
}

impl std::error::Error for OverBudget {}

/// `bytes` in MiB for messages: whole when whole, else to a tenth.
fn mib(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    }
}

impl Budget {
    /// A budget of `limit` bytes, nothing reserved.
    pub fn new(limit: u64) -> Arc<Budget> {
        Arc::new(Budget { limit, used: AtomicU64::new(0) })
    }

    /// Bytes reserved now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }

    /// Reserves `bytes` for `what` (named in the refusal), unless that would pass the limit.
    pub fn reserve(self: &Arc<Self>, bytes: u64, what: &str) -> Result<Share, OverBudget> {
        let mut used = self.used();
        loop {
            if used.saturating_add(bytes) > self.limit {
                let what = what.to_string();
                return Err(OverBudget { what, bytes, used, limit: self.limit });
            }
            match self.used.compare_exchange(used, used + bytes, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Ok(Share { budget: Arc::clone(self), bytes }),
                Err(now) => used = now,
            }
        }
    }
}

/// What a player of `spec` holds at worst besides its net: its search (an alpha-beta table; an
/// MCTS tree at its playouts, or at the node ceiling under a clock, `timed`, or with `options`'
/// time per move) and the game's record.
pub fn player_bytes(spec: &PlayerSpec, options: &NetOptions, timed: bool) -> u64 {
    let search = match spec {
        PlayerSpec::Random | PlayerSpec::Policy { .. } => 0,
        PlayerSpec::AlphaBeta { net, .. } => AlphaBetaPlayer::table_bytes(net.is_some()),
        PlayerSpec::Mcts { playouts, .. } => {
            let ceiling = search::tree_node_limit() as u64;
            let nodes = match (timed, playouts, options.time) {
                (false, Some(p), _) => u64::from(*p) + 1,
                (false, None, None) => u64::from(options.playouts) + 1,
                _ => ceiling,
            };
            // The tree's arena and the spare one its kept subtree is copied into.
            2 * nodes.min(ceiling) * NODE_BYTES
        }
    };
    search + record_bytes()
}

/// What a refusal adds about `spec`'s worst case when its MCTS tree is counted at the node
/// ceiling: the setting that lowers the ceiling.
pub fn ceiling_note(spec: &PlayerSpec, options: &NetOptions, timed: bool) -> String {
    let ceiling = search::tree_node_limit() as u64;
    let at_ceiling = matches!(spec, PlayerSpec::Mcts { .. })
        && player_bytes(spec, options, timed) - record_bytes() == 2 * ceiling * NODE_BYTES;
    if at_ceiling {
        format!(
            " (its search tree, twice over while it keeps a subtree, at the {ceiling}-node ceiling \
             of a search under a clock, which {} lowers)",
            search::MAX_TREE_NODES_VAR
        )
    } else {
        String::new()
    }
}

/// A game's record at its longest: the game's moves, hashes and counters, held by the game and
/// by the player's copy of it, in vectors that grow by doubling.
fn record_bytes() -> u64 {
    let plies = u64::from(draughts::DrawRules::default().max_plies).next_power_of_two();
    let ply = std::mem::size_of::<draughts::Move>() + std::mem::size_of::<u64>() + 2;
    2 * plies * ply as u64
}

/// What an analysis holds at worst besides its player's search (see [`ANALYSIS_BYTES`]).
pub fn analysis_bytes(spec: &PlayerSpec, options: &NetOptions, timed: bool) -> u64 {
    player_bytes(spec, options, timed) + ANALYSIS_BYTES
}

/// What an engine of `spec` holds once loaded, shared by its games: its net (as big as its file)
/// and, for a net that runs through libtorch, the evaluation cache in front of it.
pub fn engine_bytes(spec: &PlayerSpec) -> u64 {
    let Some(net) = spec.net() else { return 0 };
    let file = std::fs::metadata(&net.checkpoint).map_or(0, |meta| meta.len());
    let cache = if sparsenet::is_sparse(&net.checkpoint) { 0 } else { NET_CACHE_BYTES };
    file + cache
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_given_back_make_room_and_a_refusal_names_the_limit_and_its_settings() {
        let budget = Budget::new(10 << 20);
        let first = budget.reserve(4 << 20, "game 1").unwrap();
        let second = budget.reserve(4 << 20, "game 2").unwrap();
        assert_eq!(budget.used(), 8 << 20);
        let err = budget.reserve(4 << 20, "game 3 (alphabeta:1)").unwrap_err().to_string();
        assert!(
            err.contains("game 3 (alphabeta:1) may hold up to 4 MiB, beside 8 MiB")
                && err.contains("the server's 10 MiB memory budget")
                && err.contains("--max-memory-mb")
                && err.contains(BUDGET_VAR),
            "{err}"
        );
        assert_eq!(budget.used(), 8 << 20, "a refusal reserves nothing");
        drop(first);
        assert_eq!(budget.used(), 4 << 20);
        let third = budget.reserve(6 << 20, "game 3").unwrap();
        assert_eq!(budget.used(), 10 << 20);
        drop((second, third));
        assert_eq!(budget.used(), 0);
        let err = budget.reserve(11 << 20, "one too big").unwrap_err().to_string();
        assert!(err.starts_with("one too big may hold up to 11 MiB more than"), "{err}");
    }

    #[test]
    fn a_player_is_charged_its_search_at_its_ceiling() {
        let options = NetOptions::default();
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        let record = record_bytes();
        assert!(record > 0 && record < 1 << 20, "{record}");
        assert_eq!(player_bytes(&spec("random"), &options, false), record);
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("not-a-net.safetensors");
        std::fs::write(&net, [0; 1000]).unwrap();
        // 2^18 entries of 16 bytes, and three slots that align the buckets to cache lines.
        let table = (4 << 20) + 3 * 16;
        assert_eq!(player_bytes(&spec("alphabeta:3"), &options, true), table + record);
        let full = spec(&format!("alphabeta:3,net={}", net.display()));
        assert_eq!(player_bytes(&full, &options, true), table + record);
        let mcts = spec(&format!("mcts:{}:400", net.display()));
        assert_eq!(player_bytes(&mcts, &options, false), 2 * 401 * NODE_BYTES + record);
        let ceiling = search::tree_node_limit() as u64;
        assert_eq!(player_bytes(&mcts, &options, true), 2 * ceiling * NODE_BYTES + record);
        assert!(ceiling_note(&mcts, &options, false).is_empty());
        assert!(ceiling_note(&mcts, &options, true).contains(search::MAX_TREE_NODES_VAR));
        let timed = NetOptions { time: Some(std::time::Duration::from_secs(1)), ..options };
        let by_time = spec(&format!("mcts:{}", net.display()));
        assert_eq!(player_bytes(&by_time, &timed, false), 2 * ceiling * NODE_BYTES + record);
        assert_eq!(analysis_bytes(&spec("random"), &timed, true), record + ANALYSIS_BYTES);
    }

    #[test]
    fn an_engine_is_charged_its_net_and_a_libtorch_nets_cache() {
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        assert_eq!(engine_bytes(&spec("alphabeta:3")), 0);
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("resnet.safetensors");
        std::fs::write(&other, [0; 1000]).unwrap();
        assert_eq!(
            engine_bytes(&spec(&format!("policy:{}", other.display()))),
            1000 + NET_CACHE_BYTES
        );
        let shipped = crate::shipped_net::checkpoint().unwrap();
        let size = std::fs::metadata(&shipped).unwrap().len();
        assert_eq!(engine_bytes(&spec(&format!("mcts:{}", shipped.display()))), size);
    }

    #[test]
    fn a_server_refuses_a_game_past_its_budget_and_gives_up_idle_games_for_new_ones() {
        use super::super::games::{Games, NewGame};
        let options = NetOptions::default();
        let game = player_bytes(&"alphabeta:1".parse().unwrap(), &options, false);
        let budget = Budget::new(3 * game + game / 2);
        let games = Games::new("alphabeta:1".into(), Vec::new(), options, Arc::clone(&budget));
        let games = games.unwrap();
        assert_eq!(budget.used(), 0, "the engine has no net; the check at start gave back");
        let new = || games.create(NewGame::default());
        let mut held: Vec<_> = (0..3).map(|_| new().map_err(|e| e.to_string()).unwrap()).collect();
        assert_eq!(budget.used(), 3 * game);
        // All three in use (held here as a request holds its game): a fourth is refused.
        let Err(err) = new() else { panic!("a fourth game passed the budget") };
        assert!(err.is::<OverBudget>(), "{err}");
        assert!(err.to_string().contains("a game of alphabeta:1 may hold up to"), "{err}");
        assert_eq!(budget.used(), 3 * game, "a refused game holds nothing");
        // The oldest game no request holds is given up for a new one, its share given back.
        let (oldest, _) = held.remove(0);
        held.push(new().map_err(|e| e.to_string()).unwrap());
        assert!(games.get(&oldest).is_none());
        assert_eq!(budget.used(), 3 * game);
        // A game a request holds is passed over: the oldest idle one goes instead.
        let (in_use, _table) = held.remove(0);
        let idle: Vec<String> = held.drain(..).map(|(id, _)| id).collect();
        new().map_err(|e| e.to_string()).unwrap();
        assert!(games.get(&in_use).is_some() && games.get(&idle[0]).is_none());
        assert!(games.get(&idle[1]).is_some());
        assert_eq!(budget.used(), 3 * game);
    }

    #[test]
    fn the_budget_comes_from_the_flag_else_the_variable_else_the_default() {
        // The variable is not set in the tests' environment.
        assert!(std::env::var(BUDGET_VAR).is_err());
        assert_eq!(budget_bytes(None).unwrap(), DEFAULT_BUDGET_MB << 20);
        assert_eq!(budget_bytes(Some(3)).unwrap(), 3 << 20);
    }
}
