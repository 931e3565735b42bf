//! `bots/README.md` carries each bot's doc paragraph; this keeps the two from drifting apart.

use pitboss_bots::{EXPLOITERS, NAMES};

const README: &str = include_str!("../../README.md");

const SOURCES: [(&str, &str); 8] = [
    ("random", include_str!("../src/random.rs")),
    ("call", include_str!("../src/call.rs")),
    ("raise", include_str!("../src/raise.rs")),
    ("lowball", include_str!("../src/lowball.rs")),
    ("hilo", include_str!("../src/hilo.rs")),
    ("equity", include_str!("../src/equity.rs")),
    ("adaptive", include_str!("../src/adaptive.rs")),
    ("cfr", include_str!("../src/cfr/mod.rs")),
];

/// The exploiters' sources, with the names each one's paragraph covers.
const EXPLOITER_SOURCES: [(&[&str], &str); 6] = [
    (&["x-raise"], include_str!("../src/exploit/maniac.rs")),
    (&["x-raise1st"], include_str!("../src/exploit/raise1st.rs")),
    (&["x-fold"], include_str!("../src/exploit/fold.rs")),
    (
        &["x-early1", "x-early2", "x-early3", "x-open1", "x-open2"],
        include_str!("../src/exploit/early.rs"),
    ),
    (&["x-switch"], include_str!("../src/exploit/switch.rs")),
    (
        &["x-small", "x-mid", "x-big"],
        include_str!("../src/exploit/sizes.rs"),
    ),
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

/// `lbr` is neither a reference bot nor one of the family, but has its section too.
#[test]
fn readme_paragraph_of_lbr_matches_its_doc_comment() {
    let doc = doc_paragraph(include_str!("../src/cfr/lbr.rs"));
    assert!(doc.len() > 200 && doc.contains("`lbr`"), "{doc}");
    assert!(
        words(README).contains(&doc),
        "bots/README.md lacks the doc paragraph of `lbr`:\n{doc}"
    );
}

#[test]
fn readme_paragraphs_match_the_exploiters_doc_comments() {
    let covered: Vec<&str> = EXPLOITER_SOURCES
        .iter()
        .flat_map(|(n, _)| n.iter().copied())
        .collect();
    assert_eq!(covered, EXPLOITERS);
    let readme = words(README);
    for (names, source) in EXPLOITER_SOURCES {
        let doc = doc_paragraph(source);
        for name in names {
            assert!(
                doc.contains(&format!("`{name}`")),
                "{name} not named in: {doc}"
            );
        }
        assert!(
            readme.contains(&doc),
            "bots/README.md lacks the doc paragraph of {names:?}:\n{doc}"
        );
    }
}
