//! The estimator's cost per hand at a full table, worst case: every seat calls down to the
//! showdown (all cards are dealt, every card is a chance event with every live seat corrected),
//! 2-7 triple draw six-handed drawing two cards a draw (reshuffles included) and stud hi/lo
//! eight-handed (community card included); in no limit also every seat all-in at the first bet
//! (`shove`: the betting is over before the first card or draw, so every correction after it is
//! the model's all-in estimate, what the model `stacks48` does once nobody can bet any more).
//! The adjuster is the referee's: its default model, the table's stacks. The hands are played
//! first; only the estimator is timed, in CPU time of the thread (other jobs on the machine then
//! inflate it little), best of five passes: `cargo bench -p pitboss-luck --bench cost`
//! (`HANDS=5000 ONLY=stud8-fl:8` or `ONLY=27td-nl:2:shove` for fewer hands of one table;
//! `LUCK_MODEL=strength` for the showdown-now model, `allin:N` for the all-in model without the
//! stacks, `stacks:N` for another base of its deals, `sized:N` for the opt-in model `sized48`,
//! whose size term costs most heads-up in big-bet triple draw: `ONLY=27td-nl:2`).

use pitboss_cards::Deck;
use pitboss_luck::{Adjuster, Model};
use pitboss_rules::{Action, Event, Hand, Preset, Seat, TableSetup};

/// `count` hands of `preset` at `seats` seats, every seat calling down (or, with `shove`, the
/// first bettor all-in and everyone calling it), drawing two cards a draw.
fn hands(
    preset: &str,
    seats: usize,
    count: u64,
    shove: bool,
) -> (pitboss_rules::Game, u64, Vec<Vec<Event>>) {
    let p = Preset::by_name(preset).unwrap();
    let table = TableSetup {
        game: p.game,
        stacks: vec![p.stack; seats],
        button: 0,
    }
    .validate()
    .unwrap();
    let all = (0..count)
        .map(|k| {
            let t = table.with_button(Seat((k % seats as u64) as u8));
            let mut hand = Hand::start(&t, Deck::for_hand(9, k)).unwrap();
            while let Some(l) = hand.legal() {
                let a = if let Some(h) = l.discard {
                    Action::Discard {
                        cards: h.iter().take(2).collect(),
                    }
                } else if l.bring_in.is_some() && !shove {
                    Action::BringIn
                } else if let Some(r) = l.raise.filter(|_| shove) {
                    Action::Raise { to: r.max_to }
                } else if l.check {
                    Action::Check
                } else {
                    Action::Call
                };
                hand.apply(l.seat, a).unwrap();
            }
            hand.events().to_vec()
        })
        .collect();
    (p.game, p.stack, all)
}

/// CPU seconds used by this thread.
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let count: u64 = std::env::var("HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    for (preset, seats, shove) in [
        ("27td-fl", 6, false),
        ("27td-fl", 2, false),
        ("stud8-fl", 8, false),
        ("stud8-fl", 2, false),
        ("27td-nl", 6, false),
        ("27td-nl", 6, true),
        ("27td-nl", 2, false),
        ("27td-nl", 2, true),
        ("stud8-nl", 8, false),
        ("stud8-nl", 8, true),
        ("stud8-nl", 2, true),
    ] {
        let table = format!("{preset}:{seats}{}", if shove { ":shove" } else { "" });
        // `ONLY=stud8-fl:8` times one table (for profiling).
        if std::env::var("ONLY").is_ok_and(|only| only != table) {
            continue;
        }
        let (game, stack, all) = hands(preset, seats, count, shove);
        // The referee's model by default; `LUCK_MODEL=strength`, `allin:N` or `stacks:N` to
        // compare.
        let model = match std::env::var("LUCK_MODEL") {
            Ok(m) if m.starts_with("allin:") => Model::AllIn(m[6..].parse().expect("allin:N")),
            Ok(m) if m.starts_with("stacks:") => Model::Stacks(m[7..].parse().expect("stacks:N")),
            Ok(m) if m.starts_with("sized:") => Model::Sized(m[6..].parse().expect("sized:N")),
            Ok(m) if m == "strength" => Model::Strength,
            _ => Model::recommended(game.variant),
        };
        let live = std::env::var("LUCK_LIVE").map_or(8, |v| v.parse().expect("LUCK_LIVE"));
        let mut adj = Adjuster::new(&game, model)
            .with_allin_live(live)
            .with_stacks(&vec![stack; seats]);
        let mut out = vec![0.0; seats];
        let mut best = f64::INFINITY;
        let mut check = 0.0;
        for _ in 0..5 {
            let t = cpu();
            for (k, events) in all.iter().enumerate() {
                adj.seed_hand(0, k as u64);
                adj.hand(seats, events, &mut out);
                check += out[0];
            }
            best = best.min(cpu() - t);
        }
        println!(
            "{preset} {seats} seats, {} to showdown: {:.2} µs per hand (checksum {check:.0})",
            if shove { "all-in, all" } else { "all" },
            best / count as f64 * 1e6
        );
    }
}
