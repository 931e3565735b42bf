//! `bots/README.md` carries each bot's doc paragraph; this keeps the two from drifting apart.

use pitboss_bots::NAMES;

const README: &str = include_str!("../../README.md");

const SOURCES: [(&str, &str); 7] = [
    ("random", include_str!("../src/random.rs")),
    ("call", include_str!("../src/call.rs")),
    ("raise", include_str!("../src/raise.rs")),
    ("lowball", include_str!("../src/lowball.rs")),
    ("hilo", include_str!("../src/hilo.rs")),
    ("equity", include_str!("../src/equity.rs")),
    ("adaptive", include_str!("../src/adaptive.rs")),
];

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `///` paragraph right above `pub struct`.
fn doc_paragraph(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("pub struct"))
        .expect("a bot struct");
    let start = lines[..at]
        .iter()
        .rposition(|l| !l.starts_with("///"))
        .map_or(0, |i| i + 1);
    words(
        &lines[start..at]
            .iter()
            .map(|l| l.trim_start_matches("///"))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

#[test]
fn readme_paragraphs_match_the_doc_comments() {
    assert_eq!(SOURCES.map(|(n, _)| n).as_slice(), NAMES);
    let readme = words(README);
    for (name, source) in SOURCES {
        let doc = doc_paragraph(source);
        assert!(doc.len() > 200, "{name}: doc paragraph too short: {doc}");
        assert!(
            readme.contains(&doc),
            "bots/README.md lacks the doc paragraph of `{name}`:\n{doc}"
        );
    }
}
