//! The documents as a reader meets them: every relative link in the README and `docs/*.md` leads
//! to a file that exists, and to a heading of it where the link names one; the README stays a
//! manual of at most 150 lines that says on its first screen that a trained net ships with it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The README's longest allowed length, in lines.
const README_MAX_LINES: usize = 150;

/// The lines of the README a reader sees first.
const FIRST_SCREEN_LINES: usize = 25;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked: the READMEs and every document under `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md"), root().join("nets/README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The text outside fenced code blocks and inline code spans, where a link means a link.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            // Every other piece between backticks is code.
            out.extend(line.split('`').step_by(2).flat_map(|piece| [piece, " "]));
            out.push('\n');
        }
    }
    out
}

/// The targets of the inline links and images in `text`: what stands in `(...)` right after `]`.
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].trim().to_string());
        }
    }
    targets
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, every character but letters,
/// digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings, a repeated one numbered as GitHub numbers it (`-1`, `-2`).
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let Some(heading) = line.strip_prefix('#').filter(|_| !fenced) else { continue };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        for n in 1.. {
            if seen.insert(anchor.clone()) {
                break;
            }
            anchor = format!("{base}-{n}");
        }
    }
    seen
}

/// What is wrong with `target`, a link in `document`, if anything.
fn broken(document: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
    let linked = match file {
        "" => document.to_path_buf(),
        file => document.parent().unwrap().join(file),
    };
    if !linked.exists() {
        return Some(format!("no file {}", linked.display()));
    }
    if anchor.is_empty() || linked.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&linked).unwrap();
    (!anchors(&text).contains(anchor)).then(|| format!("no heading #{anchor} in {file}"))
}

#[test]
fn every_relative_link_in_the_documents_resolves() {
    let mut problems = Vec::new();
    let mut links = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        for target in link_targets(&text) {
            links += 1;
            if let Some(problem) = broken(&document, &target) {
                let name = document.strip_prefix(root()).unwrap().display();
                problems.push(format!("{name}: ({target}): {problem}"));
            }
        }
    }
    assert!(links > 50, "only {links} links found: is the link scanner broken?");
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    let readme = root().join("README.md");
    assert_eq!(broken(&readme, "docs/configs.md"), None);
    assert_eq!(broken(&readme, "https://example.com/#x"), None);
    assert!(broken(&readme, "docs/no-such-file.md").is_some());
    assert!(broken(&readme, "docs/configs.md#no-such-heading").is_some());
    assert_eq!(
        slug(" The loop's levers: over `two` hours (A/B)"),
        "the-loops-levers-over-two-hours-ab"
    );
    let found = anchors("# A\n## A\n```\n# not a heading\n```\n### B c\n");
    assert_eq!(found, ["a", "a-1", "b-c"].map(String::from).into_iter().collect());
    assert_eq!(link_targets("[a](x.md) `[b](code.md)` ![c](d.svg)"), ["x.md", "d.svg"]);
}

#[test]
fn the_readme_is_a_short_manual_that_names_the_shipped_net_first() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= README_MAX_LINES, "the README has {} lines", lines.len());
    let first_screen = lines[..FIRST_SCREEN_LINES.min(lines.len())].join("\n");
    assert!(
        first_screen.contains("nets/default.safetensors") && first_screen.contains("ships"),
        "the README's first screen no longer says that a trained net ships with the binary"
    );
    for command in ["make run", "make test"] {
        assert!(readme.contains(command), "the README lacks `{command}`");
    }
}
