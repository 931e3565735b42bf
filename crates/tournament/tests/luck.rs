//! Luck-adjusted results in matches and in sequential tests: the `adj_*` outputs, and an SPRT on
//! adjusted duplicate units deciding a known edge in fewer hands than on raw ones, with its error
//! rates still within α and β.

// The arena tests' in-process bot factory, shared rather than copied.
#[path = "../../arena/tests/common/mod.rs"]
mod common;

use pitboss_arena::{convert, run_match, InProcess, MatchConfig, MatchFile, Player, Referee};
use pitboss_cards::DeckKey;
use pitboss_luck::{Adjuster, Model};
use pitboss_protocol::MatchStart;
use pitboss_rules::{Preset, Seat, TableSetup};
use pitboss_tournament::sprt::{Decision, Running, SprtConfig};

#[test]
fn a_match_writes_adjusted_results_that_conserve_chips() {
    let out = std::env::temp_dir().join(format!("pitboss-luck-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let cfg = MatchConfig::from_file(
        MatchFile {
            game: Some("stud8-fl".into()),
            bots: Some(vec!["random".into(), "call".into(), "call".into()]),
            hands: Some(3000),
            seed: Some(3),
            duplicate: Some(true),
            threads: Some(2),
            out: Some(out.clone()),
            history: Some(true),
            luck_adjust: Some(true),
            ..MatchFile::default()
        },
        |_| unreachable!(),
    )
    .unwrap();
    let res = run_match(
        &cfg,
        &common::Factory(vec!["random", "call", "call"]),
        &mut |_, _| {},
    )
    .unwrap();
    let hands = std::fs::read_to_string(out.join("hands.csv")).unwrap();
    assert!(hands.starts_with("hand,deal,rotation,button,seat,bot,net,showdown,faults,adj_net\n"));
    let mut per_hand = std::collections::BTreeMap::<u64, (i64, f64, usize)>::new();
    let mut differs = 0;
    for line in hands.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let net: i64 = f[6].parse().unwrap();
        let adj: f64 = f[9].parse().unwrap();
        differs += usize::from((adj - net as f64).abs() > 0.5);
        let e = per_hand.entry(f[0].parse().unwrap()).or_default();
        e.0 += net;
        e.1 += adj;
        e.2 += 1;
    }
    assert_eq!(per_hand.len(), 3000);
    for (k, (net, adj, seats)) in per_hand {
        assert_eq!(seats, 3);
        assert_eq!(net, 0);
        assert!(adj.abs() < 1e-6, "hand {k}: adjusted results sum to {adj}");
    }
    assert!(
        differs > 3000,
        "{differs} adjusted results differ from the raw ones"
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..10],
        &[
            "bot",
            "hands",
            "net_chips",
            "mean_per_hand",
            "unit",
            "mbb_per_hand",
            "ci95_low",
            "ci95_high",
            "std_dev",
            "faults"
        ]
    );
    assert!(header.ends_with(&[
        "adj_mbb_per_hand",
        "adj_ci95_low",
        "adj_ci95_high",
        "adj_std_dev"
    ]));
    for r in &res.rows {
        let (lo, hi) = (r.adj_ci95_low.unwrap(), r.adj_ci95_high.unwrap());
        assert!(lo < r.adj_mbb_per_hand.unwrap() && r.adj_mbb_per_hand.unwrap() < hi);
    }
    let total: f64 = res.rows.iter().map(|r| r.adj_mbb_per_hand.unwrap()).sum();
    assert!(total.abs() < 0.01, "{total}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Duplicate units of a heads-up pairing: bot 0's raw and luck-adjusted result per unit, mbb/hand.
struct Units {
    players: Vec<Box<dyn Player>>,
    referee: Referee,
    adj: Adjuster,
    table: pitboss_rules::Table,
    key: DeckKey,
    unit: f64,
    deal: u64,
}

impl Units {
    fn new(game: &str, bots: [&str; 2], seed: u64) -> Units {
        let preset = Preset::by_name(game).unwrap();
        let table = TableSetup {
            game: preset.game,
            stacks: vec![preset.stack; 2],
            button: 0,
        }
        .validate()
        .unwrap();
        let mut players: Vec<Box<dyn Player>> = bots
            .iter()
            .enumerate()
            .map(|(i, b)| {
                Box::new(InProcess(
                    pitboss_bots::builtin(b, seed * 7 + i as u64).unwrap(),
                )) as Box<dyn Player>
            })
            .collect();
        let start = MatchStart {
            game: convert::game_info(&preset.game),
            hands: 1 << 40,
            decision_ms: 0,
            bank_ms: 0,
        };
        for p in &mut players {
            p.match_start(&start).unwrap();
        }
        Units {
            players,
            referee: Referee::new(),
            adj: Adjuster::new(&preset.game, Model::recommended(preset.game.variant))
                .with_stacks(&[preset.stack; 2]),
            table,
            key: DeckKey::from_seed(seed),
            unit: preset.game.unit() as f64,
            deal: 0,
        }
    }

    /// The next deal played in both seat rotations: (raw, adjusted) for bot 0, mbb/hand.
    fn next(&mut self) -> (f64, f64) {
        let (mut raw, mut adj) = (0.0, 0.0);
        let mut corr = [0.0; 2];
        for rotation in 0..2 {
            let t = self.table.with_button(Seat((self.deal % 2) as u8));
            self.players.rotate_right(rotation);
            let deck = pitboss_cards::Deck::with_key(&self.key, self.deal);
            self.referee
                .play(&t, deck, 2 * self.deal + rotation as u64, &mut self.players);
            self.players.rotate_left(rotation);
            let hand = self.referee.hand();
            self.adj.seed_hand(self.key.side_seed(), self.deal);
            self.adj.hand(2, hand.events(), &mut corr);
            let seat = rotation; // bot 0 sits in seat `rotation`
            let net = hand.net().nth(seat).unwrap().1 as f64;
            raw += net;
            adj += net - corr[seat];
        }
        self.deal += 1;
        let to_mbb = |x: f64| x / 2.0 / self.unit * 1000.0;
        (to_mbb(raw), to_mbb(adj))
    }
}

/// Runs the SPRT on raw and on adjusted units of the same deals until both decide (checked every
/// `batch` units, at most `max` units): each side's decision and units used.
fn sprt_pair(s: &SprtConfig, units: &mut Units, batch: u64, max: u64) -> [(Decision, u64); 2] {
    let mut run = [Running::default(); 2];
    let mut done = [None; 2];
    while done.iter().any(Option::is_none) && run[0].n < max {
        let (raw, adj) = units.next();
        run[0].push(raw);
        run[1].push(adj);
        if run[0].n % batch == 0 {
            for (d, r) in done.iter_mut().zip(&run) {
                if d.is_none() {
                    let (dec, _) = s.decide(r.n, r.mean(), r.var());
                    if dec != Decision::Undecided {
                        *d = Some((dec, r.n));
                    }
                }
            }
        }
    }
    done.map(|d| d.unwrap_or((Decision::Undecided, max)))
}

/// `hilo` beats `raise` at stud8-fl by about 257 mbb/hand (README, 400,000 hands). Under H1
/// (m1 below the edge) the tests must accept H1, under H0 (m0 above it) H0; each side's errors
/// must stay within its α or β (with room for chance: at most 6 of 40 where 2 are expected), and
/// the adjusted test must need fewer units on average.
#[test]
fn sprt_on_adjusted_units_decides_a_known_edge_sooner_within_its_error_rates() {
    let runs = 40;
    for (m0, m1, truth) in [(0.0, 150.0, Decision::H1), (400.0, 550.0, Decision::H0)] {
        let s = SprtConfig {
            m0,
            m1,
            alpha: 0.05,
            beta: 0.05,
        };
        let (mut units_used, mut wrong) = ([0u64; 2], [0u32; 2]);
        for seed in 0..runs {
            let mut u = Units::new("stud8-fl", ["hilo", "raise"], 1000 + seed);
            let r = sprt_pair(&s, &mut u, 50, 20_000);
            for side in 0..2 {
                units_used[side] += r[side].1;
                wrong[side] += u32::from(r[side].0 != truth);
            }
        }
        eprintln!(
            "H0: m <= {m0}, H1: m >= {m1} (truth {}): mean units to a decision raw {:.1}, \
             adjusted {:.1}; wrong or undecided raw {}/{runs}, adjusted {}/{runs}",
            truth.name(),
            units_used[0] as f64 / runs as f64,
            units_used[1] as f64 / runs as f64,
            wrong[0],
            wrong[1]
        );
        assert!(wrong[0] <= 6 && wrong[1] <= 6, "{wrong:?}");
        assert!(units_used[1] < units_used[0], "{units_used:?}");
    }
}
