//! The PokerKit → Pitboss cross-check: verifies hands written by `scripts/pokerkit/gen_hands.py`
//! against their `_pitboss_expect` labels and prints a summary (exit 1 on any disagreement).
//!
//! `cargo run --release -p pitboss-phh --example verify_expect -- [--strict-dealing] results/phh/*.phhs`

fn main() {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    let strict = files.iter().any(|f| f == "--strict-dealing");
    files.retain(|f| f != "--strict-dealing");
    if files.is_empty() || files.iter().any(|f| f == "-h" || f == "--help") {
        eprintln!(
            "verify_expect [--strict-dealing] FILE.phhs...  (files from scripts/pokerkit/gen_hands.py)"
        );
        std::process::exit(2);
    }
    let r = pitboss_phh::cli::cli_verify_expectations(&files, strict);
    print!("{}", r.stdout);
    eprint!("{}", r.stderr);
    std::process::exit(r.code);
}
