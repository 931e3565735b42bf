//! The estimator's guarantees, checked on hands played by the rules engine: the cards it averages
//! over are exactly those the stub could produce, each correction has conditional mean zero, the
//! corrections of a hand sum to zero over the seats, and the adjusted result stays unbiased (also
//! with a value estimate that knows nothing).
//!
//! The statistical test over millions of hands is ignored by default:
//! `cargo test --release -p pitboss-luck -- --ignored`.

use std::cell::RefCell;
use std::rc::Rc;

use pitboss_cards::{Card, CardSet, Deck};
use pitboss_luck::{Adjuster, Model};
use pitboss_rules::{
    Action, CardSource, Event, Game, Hand, Legal, Preset, Recipient, Seat, TableSetup,
};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A deck that remembers, for every card it deals, the stub it was drawn from.
struct Recording {
    deck: Deck,
    stubs: Rc<RefCell<Vec<(Card, CardSet)>>>,
}

impl CardSource for Recording {
    fn deal(&mut self, _to: Recipient) -> Option<Card> {
        let stub = self.deck.stub();
        let c = self.deck.deal()?;
        self.stubs.borrow_mut().push((c, stub));
        Some(c)
    }
    fn reshuffle(&mut self, cards: CardSet) {
        self.deck.reshuffle(cards)
    }
}

/// A loose random player: folds rarely (`fold` per mille when facing a bet), raises sometimes,
/// draws a random number of cards (so that triple draw runs out of cards at a full table).
fn action(legal: &Legal, rng: &mut ChaCha8Rng, fold: u32) -> Action {
    if let Some(hand) = legal.discard {
        let mask = rng.next_u32();
        return Action::Discard {
            cards: hand
                .iter()
                .enumerate()
                .filter(|(i, _)| mask >> i & 1 == 1)
                .map(|(_, c)| c)
                .collect(),
        };
    }
    let r = rng.next_u32() % 1000;
    if legal.fold && r < fold {
        return Action::Fold;
    }
    if let Some(range) = legal.raise {
        if r > 850 {
            return Action::Raise { to: range.min_to };
        }
    }
    if legal.check {
        Action::Check
    } else if legal.bring_in.is_some() {
        Action::BringIn
    } else {
        Action::Call
    }
}

fn setup(preset: &str, seats: usize) -> TableSetup {
    let p = Preset::by_name(preset).unwrap();
    TableSetup {
        game: p.game,
        stacks: vec![p.stack; seats],
        button: 0,
    }
}

/// A table of short stacks (four units): the betting is often over before the last cards, as
/// [`Model::Stacks`] needs to be tested.
fn short(preset: &str, seats: usize) -> TableSetup {
    let mut s = setup(preset, seats);
    s.stacks = vec![4 * s.game.unit(); seats];
    s
}

/// The model's adjuster for a table: with its stacks.
fn adjuster(game: &Game, stacks: &[u64], model: Model) -> Adjuster {
    Adjuster::new(game, model).with_stacks(stacks)
}

/// Plays hand `k`; seat 0 folds with probability `fold0`‰, the others with `fold`‰.
fn play(setup: &TableSetup, seed: u64, k: u64, fold0: u32, fold: u32) -> Played {
    let table = setup.validate().unwrap();
    let button = (k as usize) % setup.stacks.len();
    let table = table.with_button(Seat(button as u8));
    let stubs = Rc::new(RefCell::new(Vec::new()));
    let src = Recording {
        deck: Deck::for_hand(seed, k),
        stubs: stubs.clone(),
    };
    let mut hand = Hand::start(&table, src).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ k.wrapping_mul(0x9E37_79B9));
    while let Some(legal) = hand.legal() {
        let f = if legal.seat == Seat(0) { fold0 } else { fold };
        let a = action(&legal, &mut rng, f);
        hand.apply(legal.seat, a).unwrap();
    }
    let stubs = stubs.borrow().clone();
    Played {
        hand,
        game: setup.game,
        stacks: setup.stacks.clone(),
        stubs,
    }
}

struct Played {
    hand: Hand<Recording>,
    game: Game,
    stacks: Vec<u64>,
    /// Each dealt card and the stub it came from.
    stubs: Vec<(Card, CardSet)>,
}

fn deals(events: &[Event]) -> Vec<usize> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Deal { .. } | Event::Community { .. }))
        .map(|(i, _)| i)
        .collect()
}

/// The hands used by the exact tests: full tables, loose play (reshuffles, community cards).
fn sample_hands(f: &mut dyn FnMut(&Played, usize)) {
    hands_of(
        &[
            setup("27td-fl", 6),
            setup("27td-nl", 3),
            setup("stud8-fl", 8),
            setup("stud8-pl", 4),
        ],
        150,
        f,
    );
}

/// [`sample_hands`] and heads-up hands of short stacks (the betting often over before the end).
fn sample_hands_and_short(f: &mut dyn FnMut(&Played, usize)) {
    sample_hands(f);
    hands_of(&[short("27td-nl", 2), short("stud8-nl", 2)], 800, f);
}

fn hands_of(tables: &[TableSetup], hands: u64, f: &mut dyn FnMut(&Played, usize)) {
    for s in tables {
        let seats = s.stacks.len();
        for k in 0..hands {
            f(&play(s, 11, k, 20, 20), seats);
        }
    }
}

/// The card event `e` (a seat's card or the community card) dealing `card` instead.
fn with_card(e: &Event, card: Card) -> Event {
    match *e {
        Event::Deal { seat, up, .. } => Event::Deal {
            seat,
            card: Some(card),
            up,
        },
        Event::Community { .. } => Event::Community { card },
        _ => unreachable!("not a card event: {e:?}"),
    }
}

/// Replays the chance event at `index` of `events` with every card of `candidates` and asserts
/// that each seat's correction, and the sum of seat 0's size features ([`Model::Sized`]; zero for
/// the other models), have mean zero over them (exactly, up to rounding).
fn assert_mean_zero_over_the_stub(
    adj: &mut Adjuster,
    seats: usize,
    events: &[Event],
    index: usize,
    candidates: CardSet,
) {
    let mut sum = vec![0.0; seats + 1];
    let mut scale = 0.0f64;
    let mut prefix = events[..=index].to_vec();
    for x in candidates.iter() {
        prefix[index] = with_card(&events[index], x);
        let mut got = None;
        adj.replay(seats, &prefix, |c| {
            if c.index == index {
                let mut v = c.corrections.to_vec();
                v.push(c.sized[0].iter().sum());
                got = Some(v);
            }
        });
        let got = got.expect("the chance event is corrected for every card");
        for (s, g) in sum.iter_mut().zip(&got) {
            *s += g;
            scale = scale.max(g.abs());
        }
    }
    let k = f64::from(candidates.len());
    for s in &sum {
        assert!(
            (s / k).abs() <= 1e-9 * scale.max(1.0),
            "mean {} at event {index}",
            s / k
        );
    }
}

#[test]
fn the_cards_averaged_over_are_exactly_the_stub() {
    let (mut reshuffles, mut communities, mut checked) = (0, 0, 0);
    sample_hands(&mut |p, seats| {
        let events = p.hand.events();
        reshuffles += events
            .iter()
            .filter(|e| matches!(e, Event::Reshuffle { .. }))
            .count();
        communities += events
            .iter()
            .filter(|e| matches!(e, Event::Community { .. }))
            .count();
        let order = deals(events);
        let stubs = &p.stubs;
        assert_eq!(stubs.len(), order.len());
        let mut adj = Adjuster::new(&p.game, Model::Strength);
        adj.replay(seats, events, |c| {
            let k = order.iter().position(|&i| i == c.index).unwrap();
            assert_eq!(c.candidates, stubs[k].1, "event {}", c.index);
            checked += 1;
        });
    });
    assert!(reshuffles > 10, "{reshuffles} reshuffles");
    assert!(communities > 10, "{communities} community cards");
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn every_correction_has_conditional_mean_zero() {
    let mut checked = 0;
    sample_hands(&mut |p, seats| {
        let events = p.hand.events();
        for model in [Model::Strength, Model::Noise] {
            let mut adj = Adjuster::new(&p.game, model);
            let mut chances = Vec::new();
            adj.replay(seats, events, |c| chances.push((c.index, c.candidates)));
            // A few chance events per hand: replace the card by every possible one.
            for &(index, candidates) in chances.iter().step_by(7) {
                assert_mean_zero_over_the_stub(&mut adj, seats, events, index, candidates);
                checked += 1;
            }
        }
    });
    assert!(checked > 1000, "{checked}");
}

/// The all-in model corrects a street's deal at once with Monte Carlo shares: its corrections
/// have mean zero over the cards the stub could deal *and* the sampler's noise. Checked by
/// re-dealing the street's cards at random (and reseeding the sampler) many times per event.
#[test]
fn all_in_corrections_have_conditional_mean_zero() {
    let (mut checked, mut moved, mut closed) = (0, 0, [0; 2]);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    sample_hands_and_short(&mut |p, seats| {
        let stud = matches!(p.game.variant, pitboss_rules::Variant::StudHiLo);
        let events = p.hand.events();
        for model in [Model::AllIn(16), Model::Stacks(16)] {
            if model == Model::AllIn(16) && !stud {
                continue;
            }
            let mut adj = adjuster(&p.game, &p.stacks, model);
            let mut groups = Vec::new();
            adj.replay(seats, events, |c| {
                // Once the betting is over (the model that knows the stacks): every such correction,
                // and a few of the others.
                let over = c.scale_index >= pitboss_luck::Scale::closed_index(0);
                if over {
                    closed[usize::from(!stud)] += 1;
                }
                groups.push((c.index, c.candidates, over));
            });
            let mut k = 0;
            for &(index, candidates, over) in &groups {
                k += 1;
                if !over && k % 5 != 1 {
                    continue;
                }
                // The street's deal: the card events up to `index` (in triple draw while anybody
                // can bet, the strength model corrects each card alone: that card).
                let mut first = index;
                while (stud || over)
                    && first > 0
                    && matches!(
                        events[first - 1],
                        Event::Deal { .. } | Event::Community { .. }
                    )
                {
                    first -= 1;
                }
                let trials = 400u64;
                let mut sum = vec![0.0; seats];
                let mut sq = vec![0.0; seats];
                let mut prefix = events[..=index].to_vec();
                for t in 0..trials {
                    let mut left = candidates;
                    for e in &mut prefix[first..=index] {
                        let pick = left
                            .iter()
                            .nth(rng.next_u32() as usize % left.len() as usize);
                        let x = pick.unwrap();
                        left.remove(x);
                        *e = with_card(e, x);
                    }
                    adj.seed_hand(t, rng.next_u64());
                    let mut got = None;
                    adj.replay(seats, &prefix, |c| {
                        if c.index == index {
                            got = Some(c.corrections.to_vec());
                        }
                    });
                    for (i, g) in got.expect("corrected").iter().enumerate() {
                        sum[i] += g;
                        sq[i] += g * g;
                    }
                }
                let n = trials as f64;
                for i in 0..seats {
                    let mean = sum[i] / n;
                    let se = ((sq[i] / n - mean * mean).max(0.0) / n).sqrt();
                    // 5 standard errors: a false alarm about once in 3.5 million per seat and event.
                    assert!(
                        mean.abs() <= 5.0 * se + 1e-9,
                        "seat {i} event {index}: {mean} ± {se}"
                    );
                    moved += usize::from(se > 0.0);
                }
                checked += 1;
            }
        }
    });
    assert!(checked > 100, "{checked}");
    assert!(moved > 200, "{moved}");
    // Both games reach the end of the betting with cards to come on the short tables.
    assert!(closed[0] > 15 && closed[1] > 15, "{closed:?}");
}

/// The size term of [`Model::Sized`] (pot- and no-limit triple draw heads-up, while both seats
/// can bet) has exact conditional mean zero: each card event with the term is replayed with every
/// card the stub could have dealt.
#[test]
fn sized_corrections_have_conditional_mean_zero() {
    let (mut checked, mut sized) = (0, 0);
    hands_of(
        &[
            setup("27td-nl", 2),
            setup("27td-pl", 2),
            short("27td-nl", 2),
        ],
        120,
        &mut |p, seats| {
            let events = p.hand.events();
            let mut adj = adjuster(&p.game, &p.stacks, Model::Sized(16));
            let mut chances = Vec::new();
            adj.replay(seats, events, |c| {
                let with_term = c.sized.iter().flatten().any(|v| *v != 0.0);
                let over = c.scale_index >= pitboss_luck::Scale::closed_index(0);
                if !over {
                    chances.push((c.index, c.candidates, with_term));
                }
            });
            for &(index, candidates, with_term) in chances.iter().step_by(3) {
                sized += usize::from(with_term);
                assert_mean_zero_over_the_stub(&mut adj, seats, events, index, candidates);
                checked += 1;
            }
        },
    );
    assert!(checked > 1000, "{checked}");
    assert!(sized > 500, "the size term applied at {sized} events");
}

/// [`Model::Sized`] is [`Model::Stacks`] to the bit wherever its size term and its own scale do
/// not apply: fixed limit, stud, full tables.
#[test]
fn the_sized_model_is_the_stacks_model_outside_big_bet_triple_draw() {
    let mut same = 0;
    sample_hands_and_short(&mut |p, seats| {
        let big_bet_draw = matches!(p.game.variant, pitboss_rules::Variant::TripleDraw)
            && p.game.structure != pitboss_rules::Structure::FixedLimit;
        if big_bet_draw {
            return;
        }
        let (mut a, mut b) = (vec![0.0; seats], vec![0.0; seats]);
        adjuster(&p.game, &p.stacks, Model::Stacks(48)).hand(seats, p.hand.events(), &mut a);
        adjuster(&p.game, &p.stacks, Model::Sized(48)).hand(seats, p.hand.events(), &mut b);
        assert_eq!(a, b);
        same += usize::from(a.iter().any(|x| *x != 0.0));
    });
    assert!(same > 300, "{same}");
}

#[test]
fn corrections_sum_to_zero_over_the_seats() {
    let mut nonzero = 0;
    sample_hands_and_short(&mut |p, seats| {
        let mut out = vec![0.0; seats];
        for model in [
            Model::Strength,
            Model::AllIn(48),
            Model::Stacks(48),
            Model::Sized(48),
        ] {
            adjuster(&p.game, &p.stacks, model).hand(seats, p.hand.events(), &mut out);
            let total: f64 = out.iter().sum();
            let size: f64 = out.iter().map(|x| x.abs()).sum();
            assert!(total.abs() <= 1e-9 * size.max(1.0), "{model:?} {out:?}");
            nonzero += usize::from(size > 0.0);
        }
    });
    assert!(nonzero > 800, "{nonzero}");
}

/// Mean and standard error of the per-hand total correction of seat 0 over `hands` hands, and the
/// raw and adjusted standard deviations of its result.
fn bias(s: &TableSetup, model: Model, hands: u64, seed: u64) -> (f64, f64, f64, f64) {
    let seats = s.stacks.len();
    let (mut n, mut sum, mut sq) = (0.0, 0.0, 0.0);
    let (mut raw_sq, mut adj_sq, mut raw_sum, mut adj_sum) = (0.0, 0.0, 0.0, 0.0);
    let mut out = vec![0.0; seats];
    let mut adj = adjuster(&s.game, &s.stacks, model);
    for k in 0..hands {
        // Seat 0 is a calling station, the others fold a third of the time when facing a bet.
        let hand = play(s, seed, k, 0, 330).hand;
        adj.seed_hand(seed, k);
        adj.hand(seats, hand.events(), &mut out);
        let net = hand.net().next().unwrap().1 as f64;
        let d = out[0];
        n += 1.0;
        sum += d;
        sq += d * d;
        raw_sum += net;
        raw_sq += net * net;
        adj_sum += net - d;
        adj_sq += (net - d) * (net - d);
    }
    let mean = sum / n;
    let se = ((sq / n - mean * mean) / n).sqrt();
    let sd = |s: f64, q: f64| (q / n - (s / n) * (s / n)).sqrt();
    (mean, se, sd(raw_sum, raw_sq), sd(adj_sum, adj_sq))
}

fn check_unbiased(hands: u64) {
    for (preset, s) in [
        ("27td-fl", setup("27td-fl", 2)),
        ("27td-fl", setup("27td-fl", 6)),
        ("stud8-fl", setup("stud8-fl", 2)),
        ("stud8-fl", setup("stud8-fl", 8)),
        ("27td-nl short", short("27td-nl", 2)),
        ("stud8-nl short", short("stud8-nl", 2)),
        ("27td-nl", setup("27td-nl", 2)),
    ] {
        let seats = s.stacks.len();
        for model in [
            Model::Strength,
            Model::Noise,
            Model::AllIn(48),
            Model::Stacks(48),
            Model::Sized(48),
        ] {
            if model == Model::AllIn(48) && preset.starts_with("27td") {
                continue; // the all-in model is the strength model in triple draw
            }
            if preset == "27td-nl" && model != Model::Sized(48) {
                continue; // deep heads-up no limit: for the size term
            }
            let (mean, se, raw_sd, adj_sd) = bias(&s, model, hands, 5);
            eprintln!(
                "{preset} x{seats} {model:?}: mean correction {mean:.3} ± {se:.3} chips; sd raw \
                 {raw_sd:.1}, adjusted {adj_sd:.1}"
            );
            // Raw and adjusted means differ by the mean correction: zero within 4.5 standard
            // errors (a false alarm about once in 150,000 runs per line).
            assert!(
                mean.abs() <= 4.5 * se,
                "{preset} x{seats} {model:?}: {mean} ± {se}"
            );
        }
    }
}

#[test]
fn the_adjusted_result_is_unbiased_quick() {
    check_unbiased(4_000);
}

/// `cargo test --release -p pitboss-luck -- --ignored` (some minutes).
#[test]
#[ignore]
fn the_adjusted_result_is_unbiased_over_a_million_hands() {
    check_unbiased(1_000_000);
}

/// The adjusted results of fixed hands, pinned: a change of the estimator's speed must not change
/// its output. An FNV-1a hash of every seat's `adjusted_milli` over the sample hands (full tables,
/// loose play, reshuffles and community cards), and, in the clear, the first hands' values.
#[test]
fn adjusted_results_of_fixed_hands_are_pinned() {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    // The same over the corrections' bits: the speed work so far left them bit for bit the same.
    let mut bits = hash;
    let mut first = Vec::new();
    let mut hands = 0;
    sample_hands(&mut |p, seats| {
        let net = p.hand.outcome().expect("the hand is over").net;
        let mut out = vec![0.0; seats];
        Adjuster::new(&p.game, Model::Strength).hand(seats, p.hand.events(), &mut out);
        for d in &out {
            for b in d.to_bits().to_le_bytes() {
                bits = (bits ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        let mut milli = vec![0i64; seats];
        pitboss_luck::adjusted_milli(&net, &out, &mut milli);
        for m in &milli {
            for b in m.to_le_bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        if hands % 150 == 0 {
            first.push(milli);
        }
        hands += 1;
    });
    assert_eq!(hands, 600);
    assert_eq!(
        first,
        [
            vec![-326397, 2428880, -31668, -212699, -1458821, -399295],
            vec![-125576, 57186, 68390],
            vec![-1743490, -2275175, -2492979, -1683771, -334874, -1835374, 1346531, 9019132],
            vec![58259, -417276, 274467, 84550],
        ]
    );
    assert_eq!(hash, 0xa5dc_ae83_93df_52bd);
    assert_eq!(bits, 0x0952_962b_c6b5_d101);
}

/// The same for the all-in model (stud hands; its sampler seeded per hand): the corrections' bits.
#[test]
fn all_in_corrections_of_fixed_hands_are_pinned() {
    let mut bits = 0xcbf2_9ce4_8422_2325u64;
    let mut hands = 0u64;
    sample_hands(&mut |p, seats| {
        if !matches!(p.game.variant, pitboss_rules::Variant::StudHiLo) {
            return;
        }
        let mut out = vec![0.0; seats];
        let mut adj = Adjuster::new(&p.game, Model::AllIn(48));
        adj.seed_hand(7, hands);
        adj.hand(seats, p.hand.events(), &mut out);
        for d in &out {
            for b in d.to_bits().to_le_bytes() {
                bits = (bits ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        hands += 1;
    });
    assert_eq!(hands, 300);
    assert_eq!(bits, 0xb079_ba91_e5fe_2df5);
}
