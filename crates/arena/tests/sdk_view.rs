//! The Rust SDK's view tracker (protocol 1.1 compact messages) against the referee: in every
//! preset, with random players up to six seats, the view rebuilt from a seat's events and
//! `hand_start` equals the view the referee sends in full messages, at every decision.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use pitboss_arena::{Fault, MatchConfig, MatchFile, Player, Referee};
use pitboss_cards::Deck;
use pitboss_protocol::sdk::ViewTracker;
use pitboss_protocol::{ActRequest, Action, Bot, HandEnd, HandStart, MatchStart};
use pitboss_rules::Seat;

static CHECKED: AtomicU64 = AtomicU64::new(0);

struct Checked {
    bot: common::Random,
    tracker: ViewTracker,
    draw: bool,
}

impl Player for Checked {
    fn match_start(&mut self, m: &MatchStart) -> Result<(), Fault> {
        self.draw = m.game.variant == "triple-draw";
        Ok(())
    }
    fn hand_start(&mut self, h: &HandStart) -> Result<(), Fault> {
        self.tracker.hand_start(h, self.draw);
        Ok(())
    }
    fn act(&mut self, r: &ActRequest) -> Result<Action, Fault> {
        for e in &r.events {
            self.tracker.apply(e);
        }
        assert_eq!(self.tracker.view(&r.legal), &r.view, "hand {}", r.hand);
        CHECKED.fetch_add(1, Ordering::Relaxed);
        Ok(self.bot.act(r))
    }
    fn hand_end(&mut self, _h: &HandEnd) -> Result<(), Fault> {
        Ok(())
    }
}

#[test]
fn the_view_kept_from_events_is_the_referees_view() {
    for game in [
        "27td-fl", "27td-pl", "27td-nl", "stud8-fl", "stud8-pl", "stud8-nl",
    ] {
        for seats in [2usize, 3, 6] {
            let cfg = MatchConfig::from_file(
                MatchFile {
                    game: Some(game.into()),
                    bots: Some(vec!["random".into(); seats]),
                    seed: Some(5),
                    ..MatchFile::default()
                },
                |_| std::env::temp_dir(),
            )
            .unwrap();
            let table = cfg.table_setup().validate().unwrap();
            let start = MatchStart {
                game: pitboss_arena::convert::game_info(&cfg.game()),
                hands: 400,
                decision_ms: 0,
                bank_ms: 0,
            };
            let mut players: Vec<Box<dyn Player>> = (0..seats)
                .map(|i| {
                    Box::new(Checked {
                        bot: common::Random(0x9E37_79B9 + i as u64),
                        tracker: ViewTracker::default(),
                        draw: false,
                    }) as Box<dyn Player>
                })
                .collect();
            for p in &mut players {
                p.match_start(&start).unwrap();
            }
            let mut referee = Referee::new();
            for k in 0..400u64 {
                let t = table.with_button(Seat((k % seats as u64) as u8));
                referee.play(&t, Deck::for_hand(17, k), k, &mut players);
            }
        }
    }
    // 6 presets × 3 table sizes × 400 hands, several decisions each.
    assert!(CHECKED.load(Ordering::Relaxed) > 6 * 3 * 400 * 3);
}
