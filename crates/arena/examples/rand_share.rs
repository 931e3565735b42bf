//! How much of a pairing's luck-adjusted variance is the bots' own randomisation — the most that
//! AIVAT's action terms (corrections at the decisions of a bot whose probabilities are known,
//! issue #28) could remove. Plays the same duplicate deals twice with the bots seeded differently,
//! adjusts both with the referee's model, and reports for bot 0's duplicate units the sd of the
//! raw and adjusted results and `E[Var(adj | cards)] = Var(adj₁ − adj₂) / 2`, the variance left
//! to the bots' random choices (both bots': an upper bound for one of them):
//! `cargo run --release -p pitboss-arena --example rand_share -- 27td-fl cfr-eq,lowball 20000`.
use pitboss_arena::{convert, InProcess, Player, Referee};
use pitboss_cards::DeckKey;
use pitboss_luck::{Adjuster, HandAdjuster, Model};
use pitboss_protocol::MatchStart;
use pitboss_rules::{Preset, Seat, TableSetup};

fn units(game: &str, bots: &[&str], deals: u64, bot_seed: u64) -> Vec<(f64, f64)> {
    let preset = Preset::by_name(game).unwrap();
    let n = bots.len();
    let table = TableSetup {
        game: preset.game,
        stacks: vec![preset.stack; n],
        button: 0,
    }
    .validate()
    .unwrap();
    let mut players: Vec<Box<dyn Player>> = bots
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Box::new(InProcess(
                pitboss_bots::builtin(b, bot_seed * 31 + i as u64).unwrap(),
            )) as Box<dyn Player>
        })
        .collect();
    let start = MatchStart {
        game: convert::game_info(&preset.game),
        hands: deals * n as u64,
        decision_ms: 0,
        bank_ms: 0,
    };
    for p in &mut players {
        let _ = p.match_start(&start);
    }
    let key = DeckKey::from_seed(1);
    let mut referee = Referee::new();
    let mut adj = HandAdjuster::new(
        Adjuster::new(&preset.game, Model::recommended(preset.game.variant))
            .with_stacks(&vec![preset.stack; n]),
        9,
        n,
    );
    let mut ids: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    let (mut raw, mut a) = (0.0, 0.0);
    for k in 0..deals * n as u64 {
        let t = table.with_button(Seat((k % n as u64) as u8));
        players.rotate_right(1);
        ids.rotate_right(1);
        let deal = k / n as u64;
        referee.play(
            &t,
            pitboss_cards::Deck::with_key(&key, deal),
            k,
            &mut players,
        );
        let hand = referee.hand();
        let net: Vec<(Seat, i64)> = hand.net().collect();
        let milli = adj.hand(deal, hand.events(), &net);
        let me = ids.iter().position(|&x| x == 0).unwrap();
        raw += net[me].1 as f64;
        a += milli[me] as f64 / 1000.0;
        if k % n as u64 == n as u64 - 1 {
            out.push((raw, a));
            raw = 0.0;
            a = 0.0;
        }
    }
    out
}

fn var(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = &args[1];
    let bots: Vec<&str> = args[2].split(',').collect();
    let deals: u64 = args[3].parse().unwrap();
    let u1 = units(game, &bots, deals, 1);
    let u2 = units(game, &bots, deals, 2);
    let raw: Vec<f64> = u1.iter().map(|u| u.0).collect();
    let adj: Vec<f64> = u1.iter().map(|u| u.1).collect();
    let dr: Vec<f64> = u1.iter().zip(&u2).map(|(a, b)| a.0 - b.0).collect();
    let da: Vec<f64> = u1.iter().zip(&u2).map(|(a, b)| a.1 - b.1).collect();
    println!(
        "{game} {}: dup units {deals}: sd raw {:.1}, adjusted {:.1}; randomisation part: raw {:.1}, adjusted {:.1} ({:.0}% of the adjusted variance)",
        args[2],
        var(&raw).sqrt(),
        var(&adj).sqrt(),
        (var(&dr) / 2.0).sqrt(),
        (var(&da) / 2.0).sqrt(),
        100.0 * var(&da) / 2.0 / var(&adj)
    );
}
