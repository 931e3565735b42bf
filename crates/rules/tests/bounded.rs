//! Bounded hands: with the deepest stacks accepted and players who raise the minimum whenever they
//! may, every hand still ends, because a betting round allows at most `MAX_BETS_PER_ROUND` full
//! bets and raises.

use pitboss_cards::{CardSet, Deck};
use pitboss_rules::{Action, Event, Hand, Preset, TableSetup, MAX_BETS_PER_ROUND, MAX_CHIPS};

/// Plays one hand where everybody min-raises when allowed (else checks or calls); returns the
/// number of actions and the most raises seen in one round.
fn min_raisers(setup: &TableSetup, limit: usize) -> (usize, usize) {
    let table = setup.validate().expect("valid setup");
    let mut hand = Hand::start(&table, Deck::for_hand(5, 0)).expect("deal");
    let mut steps = 0;
    while let Some(legal) = hand.legal() {
        steps += 1;
        assert!(
            steps <= limit,
            "the hand has not ended after {limit} actions"
        );
        let action = if let Some(r) = legal.raise {
            Action::Raise { to: r.min_to }
        } else if legal.check {
            Action::Check
        } else if legal.call.is_some() {
            Action::Call
        } else if legal.bring_in.is_some() {
            Action::BringIn
        } else if legal.discard.is_some() {
            Action::Discard {
                cards: CardSet::EMPTY,
            }
        } else {
            Action::Fold
        };
        hand.apply(legal.seat, action).expect("legal");
    }
    let mut most = 0;
    let mut run = 0;
    for e in hand.events() {
        match e {
            Event::Raise { .. } => {
                run += 1;
                most = most.max(run);
            }
            Event::Round { .. } => run = 0,
            _ => {}
        }
    }
    assert_eq!(hand.outcome().expect("over").net.iter().sum::<i64>(), 0);
    (steps, most)
}

#[test]
fn min_raisers_with_the_deepest_stacks_end_the_hand() {
    let cap = usize::from(MAX_BETS_PER_ROUND);
    for name in ["27td-nl", "27td-pl", "stud8-nl", "stud8-pl", "27td-fl"] {
        let mut game = Preset::by_name(name).expect("preset").game;
        game.options.cap = 0;
        let setup = TableSetup {
            game,
            stacks: vec![MAX_CHIPS; 2],
            button: 0,
        };
        // Four betting rounds (five in stud), each at most cap raises answered by a call, plus
        // draws and checks.
        let (steps, most) = min_raisers(&setup, 5 * (cap + 4) * 2);
        assert!(most <= cap, "{name}: {most} raises in one round");
        assert!(
            steps > cap,
            "{name}: only {steps} actions: the test did not raise much"
        );
    }
}
