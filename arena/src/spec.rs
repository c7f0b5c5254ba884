//! Players as written on the command line: `random`, `alphabeta:DEPTH` (or `alphabeta:SECONDSs`, or
//! `alphabeta` alone for the match's time per move), each alpha-beta form optionally followed by
//! `,net=CHECKPOINT` (a net's value at the leaves, e.g. `alphabeta:0.1s,net=run`),
//! `mcts:CHECKPOINT[:PLAYOUTS][,KEY=VALUE...]` and `policy:CHECKPOINT`, where CHECKPOINT is a
//! checkpoint file or a run directory (meaning the net its best-net pointer names) and the
//! `KEY=VALUE` pairs change the player's search (`search::MctsConfig::player_keys`, e.g.
//! `mcts:run:400,c_puct=2,solver=false`).

use crate::error::ArenaError;
use rundata::RunDir;
use search::alphabeta::SearchFeatures;
use search::MctsConfig;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Deepest alpha-beta depth accepted on the command line.
pub const MAX_DEPTH: u32 = 40;

/// A player as named on the command line, its checkpoint found on disk.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random legal moves (`random`).
    Random,
    /// The built-in alpha-beta engine (`alphabeta:DEPTH` or `alphabeta:SECONDSs`, then
    /// `,net=CHECKPOINT` for a net's value at its quiet leaves).
    AlphaBeta {
        /// How long it searches; `None` (`alphabeta` alone) for the match's time per move (see
        /// [`crate::NetOptions::time`]).
        limit: Option<SearchLimit>,
        /// The net that scores its quiet leaves in place of the static evaluation, if any.
        net: Option<NetSource>,
        /// Search refinements changed from the engine's defaults (`KEY=VALUE`, keys of
        /// `search::alphabeta::SearchFeatures::set`), in the order written.
        search: Vec<(String, String)>,
    },
    /// A net with MCTS; the playouts default to the match's (see [`crate::NetOptions`]).
    Mcts {
        /// Where the net comes from.
        net: NetSource,
        /// MCTS playouts per decision, when the spec names them.
        playouts: Option<u32>,
        /// Search settings changed from the player defaults, in the order written.
        settings: Vec<(String, String)>,
    },
    /// A net's raw policy: the most likely legal step, no search.
    Policy {
        /// Where the net comes from.
        net: NetSource,
    },
}

/// How long the alpha-beta engine searches each move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchLimit {
    /// Search to this many plies (iterative deepening up to it).
    Depth(u32),
    /// Search for this long per move.
    Time(Duration),
}

/// Where a net player's checkpoint came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetSource {
    /// The checkpoint file.
    pub checkpoint: PathBuf,
    /// The run directory, when the player was named by one.
    pub run_dir: Option<PathBuf>,
}

/// Whether `text` names a player with a net (`mcts:...`, `policy:...`, or `alphabeta...` with
/// `net=`), without checking the rest: what a program decides by before it loads the net code.
pub fn names_a_net(text: &str) -> bool {
    let alphabeta_net = alphabeta_parts(text)
        .and_then(|(_, settings)| settings)
        .is_some_and(|settings| settings.split(',').any(|pair| pair.starts_with("net=")));
    alphabeta_net || matches!(text.split_once(':'), Some(("mcts" | "policy", _)))
}

/// `text` as an alpha-beta player, `alphabeta[:LIMIT][,SETTINGS]`: the LIMIT (empty when none)
/// and the SETTINGS; `None` when `text` names another kind of player.
fn alphabeta_parts(text: &str) -> Option<(&str, Option<&str>)> {
    let rest = text.strip_prefix("alphabeta")?;
    let (limit, settings) = match rest.split_once(',') {
        Some((limit, settings)) => (limit, Some(settings)),
        None => (rest, None),
    };
    match limit.strip_prefix(':') {
        Some(limit) => Some((limit, settings)),
        None => limit.is_empty().then_some(("", settings)),
    }
}

impl FromStr for PlayerSpec {
    type Err = ArenaError;

    fn from_str(text: &str) -> Result<PlayerSpec, ArenaError> {
        let bad = |reason: String| ArenaError::PlayerSpec { text: text.to_string(), reason };
        if let Some((limit, settings)) = alphabeta_parts(text) {
            let limit =
                Some(limit).filter(|l| !l.is_empty()).map(parse_limit).transpose().map_err(bad)?;
            let (net, search) = match settings {
                Some(settings) => alphabeta_settings(text, settings)?,
                None => (None, Vec::new()),
            };
            return Ok(PlayerSpec::AlphaBeta { limit, net, search });
        }
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "random" if rest.is_empty() => Ok(PlayerSpec::Random),
            "random" => Err(bad("`random` takes no argument".into())),
            "mcts" => {
                let (rest, settings) = match rest.split_once(',') {
                    Some((head, tail)) if tail.contains('=') => {
                        (head, parse_settings(tail).map_err(bad)?)
                    }
                    _ => (rest, Vec::new()),
                };
                let (path, playouts) = match rest.rsplit_once(':') {
                    Some((path, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                        let most = search::tree_node_limit().min(u32::MAX as usize);
                        let playouts = n.parse().ok().filter(|&p: &u32| p >= 1 && p as usize <= most).ok_or_else(|| bad(format!("playouts `{}` is not a number from 1 to {most}, the node limit of a search tree (raise it with {}=N)", support::shown(n), search::MAX_TREE_NODES_VAR)))?;
                        (path, Some(playouts))
                    }
                    _ => (rest, None),
                };
                Ok(PlayerSpec::Mcts { net: NetSource::find(text, path)?, playouts, settings })
            }
            "policy" => Ok(PlayerSpec::Policy { net: NetSource::find(text, rest)? }),
            _ => Err(bad(format!(
                "unknown kind of player `{}`; expected random, alphabeta:DEPTH[,net=CHECKPOINT], mcts:CHECKPOINT[:PLAYOUTS][,KEY=VALUE...] or policy:CHECKPOINT",
                support::shown(kind)
            ))),
        }
    }
}

/// `KEY=VALUE` pairs in the order written.
type Settings = Vec<(String, String)>;

/// The settings of the alpha-beta player `text`: `net=CHECKPOINT` (at most once) and the search
/// refinements' `KEY=VALUE` (checked by `SearchFeatures::set`).
fn alphabeta_settings(
    text: &str,
    settings: &str,
) -> Result<(Option<NetSource>, Settings), ArenaError> {
    let bad = |reason: String| ArenaError::PlayerSpec { text: text.to_string(), reason };
    let (mut net, mut search) = (None, Vec::new());
    let mut features = SearchFeatures::default();
    for pair in settings.split(',') {
        match pair.split_once('=') {
            Some(("net", "")) => {
                return Err(bad("`net=` needs a checkpoint file or run directory".into()))
            }
            Some(("net", _)) if net.is_some() => {
                return Err(bad("`net` is given more than once".into()))
            }
            Some(("net", path)) => net = Some(NetSource::find(text, path)?),
            Some((key, value)) => {
                features.set(key, value).map_err(bad)?;
                search.push((key.to_string(), value.to_string()));
            }
            None => {
                return Err(bad(format!(
                    "alphabeta setting `{}` is not KEY=VALUE: net=CHECKPOINT or one of {}",
                    support::shown(pair),
                    SearchFeatures::KEYS.join(", ")
                )))
            }
        }
    }
    Ok((net, search))
}

/// `KEY=VALUE[,KEY=VALUE...]`, each checked against the player defaults.
fn parse_settings(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut config = MctsConfig::default();
    text.split(',')
        .map(|pair| {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                format!("search setting `{}` is not KEY=VALUE", support::shown(pair))
            })?;
            config.set(key, value)?;
            Ok((key.to_string(), value.to_string()))
        })
        .collect()
}

impl PlayerSpec {
    /// Where the player's net comes from, for a player with a net.
    pub fn net(&self) -> Option<&NetSource> {
        match self {
            PlayerSpec::Mcts { net, .. } | PlayerSpec::Policy { net } => Some(net),
            PlayerSpec::AlphaBeta { net, .. } => net.as_ref(),
            PlayerSpec::Random => None,
        }
    }

    /// An MCTS player of `net` with the default search, at `playouts` when given.
    pub fn mcts(net: NetSource, playouts: Option<u32>) -> PlayerSpec {
        PlayerSpec::Mcts { net, playouts, settings: Vec::new() }
    }
}

fn parse_limit(text: &str) -> Result<SearchLimit, String> {
    if let Some(seconds) = text.strip_suffix('s') {
        return match seconds.parse::<f64>() {
            Ok(s) if s > 0.0 && s <= 3600.0 => Ok(SearchLimit::Time(Duration::from_secs_f64(s))),
            _ => Err(format!(
                "time `{}` is not a number of seconds in (0, 3600] followed by `s`",
                support::shown(text)
            )),
        };
    }
    match text.parse::<u32>() {
        Ok(depth) if (1..=MAX_DEPTH).contains(&depth) => Ok(SearchLimit::Depth(depth)),
        _ => Err(format!("depth `{}` is not a number from 1 to {MAX_DEPTH}", support::shown(text))),
    }
}

impl NetSource {
    /// The checkpoint at `path`: the file itself, or a run directory's best net. Errors name
    /// the player as written, `text`.
    fn find(text: &str, path: &str) -> Result<NetSource, ArenaError> {
        let bad = |reason: String| ArenaError::PlayerSpec { text: text.to_string(), reason };
        let run_error = |source| ArenaError::PlayerRun { text: text.to_string(), source };
        if path.is_empty() {
            return Err(bad("needs a checkpoint file or run directory after the `:`".into()));
        }
        let path = Path::new(path);
        if path.is_dir() {
            let run = RunDir::existing(path).map_err(run_error)?;
            return match run.best_checkpoint().map_err(run_error)? {
                Some(checkpoint) if checkpoint.is_file() => {
                    Ok(NetSource { checkpoint, run_dir: Some(path.to_path_buf()) })
                }
                Some(checkpoint) => {
                    Err(bad(format!("the run's best net {} is missing", checkpoint.display())))
                }
                None => Err(bad(format!(
                    "run directory {} has no best net yet (no valid pointer in best/)",
                    path.display()
                ))),
            };
        }
        if path.is_file() {
            Ok(NetSource { checkpoint: path.to_path_buf(), run_dir: None })
        } else {
            Err(bad(format!(
                "no checkpoint file or run directory at {}",
                support::shown(&path.display().to_string())
            )))
        }
    }

    /// The checkpoint's file name without its extension, e.g. `step-00001000`.
    pub fn stem(&self) -> String {
        self.checkpoint.file_stem().map_or_else(
            || self.checkpoint.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        text.parse::<PlayerSpec>().unwrap_err().to_string()
    }

    #[test]
    fn builtin_players_parse() {
        assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
        let alphabeta = |limit| PlayerSpec::AlphaBeta { limit, net: None, search: Vec::new() };
        assert_eq!(
            "alphabeta:6".parse::<PlayerSpec>().unwrap(),
            alphabeta(Some(SearchLimit::Depth(6)))
        );
        assert_eq!(
            "alphabeta:0.25s".parse::<PlayerSpec>().unwrap(),
            alphabeta(Some(SearchLimit::Time(Duration::from_millis(250))))
        );
        assert_eq!("alphabeta".parse::<PlayerSpec>().unwrap(), alphabeta(None));
        assert!(!names_a_net("alphabeta:6") && !names_a_net("random"));
    }

    #[test]
    fn alphabeta_takes_a_net_after_any_limit() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("a.safetensors");
        std::fs::write(&net, b"weights").unwrap();
        let source = NetSource { checkpoint: net.clone(), run_dir: None };
        let net = net.display();
        for (text, limit) in [
            (format!("alphabeta:6,net={net}"), Some(SearchLimit::Depth(6))),
            (
                format!("alphabeta:0.1s,net={net}"),
                Some(SearchLimit::Time(Duration::from_millis(100))),
            ),
            (format!("alphabeta,net={net}"), None),
        ] {
            let spec: PlayerSpec = text.parse().unwrap();
            assert_eq!(
                spec,
                PlayerSpec::AlphaBeta { limit, net: Some(source.clone()), search: Vec::new() },
                "{text}"
            );
            assert!(names_a_net(&text), "{text}");
        }
        assert!(err(&format!("alphabeta:6,depth=3,net={net}"))
            .contains("unknown alpha-beta setting `depth`; expected one of pvs, aspiration"));
        assert!(err(&format!("alphabeta:6,net={net},net={net}")).contains("more than once"));
        assert!(err("alphabeta:6,").contains("alphabeta setting `` is not KEY=VALUE"));
        assert!(err("alphabeta:6,pvs=maybe").contains("`pvs` is a switch: 1 or 0"));
        assert!(err("alphabeta:6,aspiration=-5").contains("from 0 to 1000"));
        assert!(err("alphabeta:6,threads=0").contains("`threads` is a count from 1 to 64"));
        assert!(err("alphabeta:6,threads=65").contains("`threads` is a count from 1 to 64"));
        assert!(format!("alphabeta:0.1s,net={net},threads=4").parse::<PlayerSpec>().is_ok());
        // Search settings, with or without a net, in the order written.
        let spec: PlayerSpec =
            format!("alphabeta:0.1s,reductions=1,net={net},pvs=0").parse().unwrap();
        let search = vec![("reductions".into(), "1".into()), ("pvs".into(), "0".into())];
        assert_eq!(
            spec,
            PlayerSpec::AlphaBeta {
                limit: Some(SearchLimit::Time(Duration::from_millis(100))),
                net: Some(source.clone()),
                search
            }
        );
        assert!(matches!(
            "alphabeta:4,killers=0".parse(),
            Ok(PlayerSpec::AlphaBeta { net: None, search, .. }) if search.len() == 1
        ));
        assert!(err("alphabeta,net=").contains("`net=` needs a checkpoint"));
        assert!(err("alphabeta:0,net=x").contains("depth `0`"));
        assert!(err("alphabeta:6,net=/no/such")
            .contains("no checkpoint file or run directory at /no/such"));
        assert!(err("alphabetanet=x").contains("unknown kind of player `alphabetanet=x`"));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(err("minimax:3").contains("unknown kind of player `minimax`"));
        assert!(err("alphabeta:0").contains("depth `0`"));
        assert!(err("alphabeta:deep").contains("depth `deep`"));
        assert!(err("random:3").contains("no argument"));
        assert!(err("mcts:/no/such.safetensors:100")
            .contains("no checkpoint file or run directory at /no/such.safetensors"));
        assert!(err("policy:").contains("needs a checkpoint"));
        assert!(err("mcts:/no/such:0").contains("playouts `0`"));
        // A 4e9-playout request grew its tree until the allocator aborted.
        let huge = err("mcts:/no/such:4000000000");
        assert!(huge.contains("node limit") && huge.contains(search::MAX_TREE_NODES_VAR), "{huge}");
        assert!(err("mcts:/no/such:64,cpuct=2").contains("unknown search setting `cpuct`"));
        assert!(err("mcts:/no/such:64,solver=maybe").contains("`solver=maybe`"));
    }

    #[test]
    fn search_settings_follow_the_playouts() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("a.safetensors");
        std::fs::write(&net, b"weights").unwrap();
        let spec: PlayerSpec =
            format!("mcts:{}:64,c_puct=2,solver=false", net.display()).parse().unwrap();
        let PlayerSpec::Mcts { playouts, settings, .. } = spec else { panic!("{spec:?}") };
        assert_eq!(playouts, Some(64));
        let pairs = [("c_puct", "2"), ("solver", "false")].map(|(k, v)| (k.into(), v.into()));
        assert_eq!(settings, pairs.to_vec());
    }

    #[test]
    fn a_run_directory_means_its_best_net() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        assert!(err(&format!("policy:{}", run.display())).contains("no best net yet"));
        std::fs::create_dir(run.join("nets")).unwrap();
        std::fs::write(run.join("nets/step-00000100.safetensors"), b"weights").unwrap();
        std::fs::write(
            run.join("best.json"),
            r#"{"checkpoint": "nets/step-00000100.safetensors", "step": 100, "generation": 1, "promoted_at": 0}"#,
        )
        .unwrap();
        let spec: PlayerSpec = format!("mcts:{}:64", run.display()).parse().unwrap();
        let PlayerSpec::Mcts { net, playouts, settings } = spec else { panic!("{spec:?}") };
        assert_eq!(playouts, Some(64));
        assert!(settings.is_empty());
        assert_eq!(net.checkpoint, run.join("nets/step-00000100.safetensors"));
        assert_eq!(net.run_dir.as_deref(), Some(run));
        assert_eq!(net.stem(), "step-00000100");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(support::property_cases(10_000)))]

        /// Any text: a player or an error naming the text (escaped and cut) on one line, never
        /// a panic.
        #[test]
        fn any_text_parses_or_is_refused_without_panicking(
            text in "(random|alphabeta|mcts|policy|)(:[-0-9a-z./s:,=\n]{0,12}){0,3}|\\PC{0,24}|.{0,200}"
        ) {
            if let Err(e) = text.parse::<PlayerSpec>() {
                let shown = support::shown(&text);
                proptest::prop_assert!(e.to_string().contains(&format!("`{shown}`")), "{e}");
                proptest::prop_assert!(!e.to_string().chars().any(char::is_control), "{e}");
            }
        }
    }
}
