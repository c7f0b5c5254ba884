//! The `settings!` declaration and its ranges, tried on sections made for the tests.

use super::*;

crate::settings! {
    /// A section for the tests.
    #[derive(Debug, PartialEq)]
    pub struct Inner ("inner.") {
        /// Most visits.
        most: u32 = 10, Range::AtLeast(1.0);
        /// Fewest visits, up to `most`.
        fewest: u32 = 2, Range::UpTo("most"), player;
    }
}

crate::settings! {
    /// The outer section.
    #[derive(Debug, PartialEq)]
    pub struct Outer ("") {
        /// A share.
        share: f32 = 0.5, Range::Closed(0.0, 1.0), player;
        /// A switch.
        on: bool = true, Range::Any;
        /// At least `share`.
        floor: f64 = 0.75, Range::AtLeastSetting("share");
        rules:
        /// Names, none empty.
        names: Vec<String> = vec!["a".into()], "names, none empty", check_names;
        sections:
        /// The nested one.
        inner: Inner;
        tables:
        /// Apart: its own keys and checks.
        apart: Inner;
    }
}

fn check_names(names: &[String]) -> Result<(), Invalid> {
    match names.iter().find(|name| name.is_empty()) {
        Some(name) => Err(Invalid::new("names", name, "names, none empty")),
        None => Ok(()),
    }
}

#[test]
fn the_declaration_gives_defaults_keys_checks_and_text_settings() {
    let outer = Outer::default();
    assert_eq!(
        (outer.share, outer.on, outer.inner.most, outer.inner.fewest, outer.apart.most),
        (0.5, true, 10, 2, 10)
    );
    let keys = Outer::keys();
    let names: Vec<_> = keys.iter().map(|k| (k.name, k.default.as_str(), k.player)).collect();
    assert_eq!(
        names,
        [
            ("share", "0.5", true),
            ("on", "true", false),
            ("floor", "0.75", false),
            ("names", "[\"a\"]", false),
            ("inner.most", "10", false),
            ("inner.fewest", "2", true)
        ]
    );
    assert_eq!(keys[0].meaning, "A share.");
    assert_eq!(
        (keys[3].range.as_str(), keys[3].meaning),
        ("names, none empty", "Names, none empty.")
    );
    assert_eq!(keys[5].range, "in 1..=most");

    let mut bad = Outer::default();
    bad.apart.most = 0;
    assert_eq!(bad.check_ranges(), Ok(()), "a table's checks are its own");
    bad.inner.fewest = 11;
    let err = bad.check_ranges().unwrap_err();
    assert_eq!(err.to_string(), "`inner.fewest` = 11 is invalid: in 1..=most (10)");
    bad.names.push(String::new());
    assert_eq!(bad.check_ranges().unwrap_err().field, "names");
    bad.floor = 0.25;
    assert_eq!(
        bad.check_ranges().unwrap_err().to_string(),
        "`floor` = 0.25 is invalid: at least share (0.5)"
    );
    bad.share = f32::NAN;
    assert_eq!(bad.check_ranges().unwrap_err().field, "share");

    let mut outer = Outer::default();
    assert_eq!(outer.set_text("share", "0.25"), Some(Ok(())));
    assert_eq!(outer.share, 0.25);
    assert_eq!(outer.set_text("on", "yes"), Some(Err("`on=yes`: not true or false".into())));
    assert_eq!(
        outer.inner.set_text("most", "1.5"),
        Some(Err("`most=1.5`: not a whole number".into()))
    );
    assert_eq!(outer.set_text("inner.most", "3"), None);
    assert_eq!(outer.set_text("names", "b"), None);
    assert_eq!(outer.inner.text("most").as_deref(), Some("10"));
    assert_eq!((outer.text("share").as_deref(), outer.number("on")), (Some("0.25"), Some(1.0)));
}

#[test]
fn ranges_read_as_documented() {
    let none = |_: &str| None;
    assert!(Range::Positive.contains(0.1, none) && !Range::Positive.contains(f64::INFINITY, none));
    assert!(!Range::Open(-1.0, 1.0).contains(-1.0, none));
    assert!(
        Range::Whole(1, 256).contains(256.0, none) && !Range::Whole(1, 256).contains(0.0, none)
    );
    assert!(!Range::UpTo("missing").contains(1.0, none));
    assert!(!Range::AtLeastSetting("missing").contains(1.0, none));
    let (open_closed, closed_open) = (Range::OpenClosed(0.0, 1.0), Range::ClosedOpen(0.0, 1.0));
    assert!(open_closed.contains(1.0, none) && !open_closed.contains(0.0, none));
    assert!(closed_open.contains(0.0, none) && !closed_open.contains(1.0, none));
    assert!(
        Range::NonNegative.contains(0.0, none) && !Range::NonNegative.contains(f64::INFINITY, none)
    );
    assert!(!Range::NonNegative.contains(f64::NAN, none));
    let even = Range::EvenAtLeast(2.0);
    assert!(even.contains(4.0, none) && !even.contains(3.0, none) && !even.contains(0.0, none));
    let off = Range::OffOrAtLeast(2.0);
    assert!(off.contains(0.0, none) && off.contains(2.0, none) && !off.contains(1.0, none));
    assert_eq!(Range::Closed(0.1, 10.0).to_string(), "in [0.1, 10]");
    assert_eq!(Range::Whole(0, 16).to_string(), "in 0..=16");
    assert_eq!(open_closed.to_string(), "in (0, 1]");
    assert_eq!(closed_open.to_string(), "in [0, 1)");
    assert_eq!(off.to_string(), "0 (off) or at least 2");
    assert_eq!(even.to_string(), "an even number, at least 2");
}

#[test]
fn rules_write_their_values_as_a_config_does() {
    assert_eq!(
        vec!["alphabeta:4".to_string(), "random".into()].config_text(),
        r#"["alphabeta:4", "random"]"#
    );
    assert_eq!(None::<Vec<String>>.config_text(), "none");
    assert_eq!(
        inline_table(Some("sgd"), &[("momentum", &0.9), ("nesterov", &true)]),
        r#"{kind = "sgd", momentum = 0.9, nesterov = true}"#
    );
    assert_eq!(inline_table(Some("constant"), &[]), r#"{kind = "constant"}"#);
    assert_eq!(inline_table(None, &[("elo0", &0), ("alpha", &0.05)]), "{elo0 = 0, alpha = 0.05}");
}
