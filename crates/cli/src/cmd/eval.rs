//! `pitboss eval`: holdings in (stdin lines or arguments), one JSON object per holding out. This is
//! contract 1 of docs/CONTRACTS.md, relied on by outside tools such as `scripts/crosscheck_eval.py`:
//! `{"cards": ..., "best": "<five cards>", "class": "<name>", "value": <integer>}`, larger value =
//! better, equal = tie, `null` best and value when an ace-to-five-8 holding has no low.

use std::io::{self, BufRead, BufWriter, Write};

use pitboss_cards::{eval, parse_cards, Card, CardError, CardSet};
use serde::Serialize;

use crate::args::{EvalArgs, RuleArg};

/// What can stop `pitboss eval`.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The arguments contradict each other.
    #[error("{0}")]
    Config(String),
    /// A holding that cannot be evaluated; `place` is `line N` or `argument N`.
    #[error("{place}: `{text}`: {problem}")]
    Holding {
        place: String,
        text: String,
        problem: HoldingProblem,
    },
    /// Reading input or writing output failed.
    #[error("i/o: {0}")]
    Io(#[from] io::Error),
}

/// Why a holding was rejected.
#[derive(Debug, thiserror::Error)]
pub enum HoldingProblem {
    #[error(transparent)]
    Card(#[from] CardError),
    #[error("{rule} takes {expected} cards, this holding has {got}")]
    Count {
        rule: &'static str,
        expected: &'static str,
        got: usize,
    },
    #[error("the line is not valid UTF-8")]
    Encoding,
}

/// The ranking to apply, with its option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    High,
    DeuceToSeven { ace_five_straight: bool },
    AceToFive8,
}

impl Rule {
    const fn name(self) -> &'static str {
        match self {
            Rule::High => "high",
            Rule::DeuceToSeven { .. } => "deuce-to-seven",
            Rule::AceToFive8 => "ace-to-five-8",
        }
    }

    /// The accepted card counts, and how to say them.
    const fn counts(self) -> (usize, usize, &'static str) {
        match self {
            Rule::DeuceToSeven { .. } => (5, 5, "exactly 5"),
            Rule::High | Rule::AceToFive8 => (5, 7, "5 to 7"),
        }
    }
}

/// Validated configuration of one `pitboss eval` run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub rule: Rule,
    /// Holdings given as arguments; `None` = read stdin.
    pub holdings: Option<Vec<String>>,
}

impl Config {
    /// Validates the raw arguments.
    ///
    /// # Errors
    /// [`EvalError::Config`] when `--ace-five-straight` is given with a rule other than
    /// deuce-to-seven (it would silently do nothing).
    pub fn from_args(args: EvalArgs) -> Result<Config, EvalError> {
        let rule = match (args.rule, args.ace_five_straight) {
            (RuleArg::DeuceToSeven, ace_five_straight) => Rule::DeuceToSeven { ace_five_straight },
            (_, true) => {
                return Err(EvalError::Config(
                    "--ace-five-straight applies only to --rule deuce-to-seven".into(),
                ))
            }
            (RuleArg::High, false) => Rule::High,
            (RuleArg::AceToFive8, false) => Rule::AceToFive8,
        };
        let holdings = (!args.holdings.is_empty()).then_some(args.holdings);
        Ok(Config { rule, holdings })
    }
}

/// Runs the command on the process's stdin and stdout.
///
/// # Errors
/// See [`eval_lines`].
pub fn run(config: Config) -> Result<(), EvalError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match &config.holdings {
        Some(args) => {
            let items = args
                .iter()
                .enumerate()
                .map(|(i, a)| (format!("argument {}", i + 1), Ok(a.clone())));
            eval_items(config.rule, items, &mut out)
        }
        None => eval_lines(config.rule, io::stdin().lock(), &mut out),
    };
    // The valid lines before a bad one must reach the reader before the error does.
    let flushed = out.flush();
    result?;
    Ok(flushed?)
}

/// Evaluates every line of `input`, writing one JSON line each to `out`. Blank lines are skipped.
///
/// # Errors
/// The first bad holding ([`EvalError::Holding`]), or an I/O error.
pub fn eval_lines(rule: Rule, input: impl BufRead, out: &mut impl Write) -> Result<(), EvalError> {
    let items = input.split(b'\n').enumerate().map(|(i, line)| {
        let place = format!("line {}", i + 1);
        let text = line.map(|bytes| {
            String::from_utf8(bytes).map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        });
        (place, text)
    });
    let mut io_error = None;
    let items = items.map_while(|(place, text)| match text {
        Ok(t) => Some((place, t)),
        Err(e) => {
            io_error = Some(e);
            None
        }
    });
    eval_items(rule, items, out)?;
    match io_error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// One output line of the contract.
#[derive(Serialize)]
struct Output<'a> {
    cards: String,
    best: Option<String>,
    class: &'a str,
    value: Option<u32>,
}

fn eval_items(
    rule: Rule,
    items: impl Iterator<Item = (String, Result<String, String>)>,
    out: &mut impl Write,
) -> Result<(), EvalError> {
    for (place, text) in items {
        let text = match text {
            Ok(t) => t,
            Err(raw) => {
                return Err(EvalError::Holding {
                    place,
                    text: raw,
                    problem: HoldingProblem::Encoding,
                })
            }
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        let output = evaluate(rule, trimmed).map_err(|problem| EvalError::Holding {
            place,
            text: trimmed.to_string(),
            problem,
        })?;
        serde_json::to_writer(&mut *out, &output).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn join(cards: &[Card]) -> String {
    let texts: Vec<String> = cards.iter().map(Card::to_string).collect();
    texts.join(" ")
}

/// Evaluates one holding under `rule`.
fn evaluate(rule: Rule, text: &str) -> Result<Output<'static>, HoldingProblem> {
    let cards = parse_cards(text)?;
    let (min, max, expected) = rule.counts();
    if !(min..=max).contains(&cards.len()) {
        return Err(HoldingProblem::Count {
            rule: rule.name(),
            expected,
            got: cards.len(),
        });
    }
    let set: CardSet = cards.iter().collect();
    let (best, class, value) = match rule {
        Rule::High => {
            let (v, five) = eval::high_best_five(set);
            (Some(five), v.class().name(), Some(v.get()))
        }
        Rule::DeuceToSeven { ace_five_straight } => {
            let (v, five) = eval::deuce_to_seven_best_five(set, ace_five_straight);
            (Some(five), v.class().name(), Some(v.get()))
        }
        Rule::AceToFive8 => match eval::ace_to_five_8_best_five(set) {
            Some((v, five)) => (Some(five), v.class_name(), Some(v.get())),
            None => (None, NO_LOW, None),
        },
    };
    Ok(Output {
        cards: join(&cards),
        best: best.map(|b| join(&b)),
        class,
        value,
    })
}

/// The class printed for an ace-to-five-8 holding without a qualifying low.
pub const NO_LOW: &str = "no qualifying low";
