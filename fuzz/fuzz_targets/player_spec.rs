//! Player specs as the command line and `[eval]` take them (`alphabeta:0.1s,net=...`,
//! `mcts:RUN:400,c_puct=2`...): read or refused with an error naming the spec.
#![no_main]

use arena::PlayerSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let names_a_net = arena::names_a_net(text);
    if let Ok(spec) = text.parse::<PlayerSpec>() {
        let has_net = !matches!(spec, PlayerSpec::Random | PlayerSpec::AlphaBeta { net: None, .. });
        assert_eq!(has_net, names_a_net, "{text:?} read as {spec:?}");
    }
});
