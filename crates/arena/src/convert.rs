//! Domain → wire: the rules' view, legal actions and events become protocol messages, and a wire
//! action becomes a domain action. Keeping the two type families apart means a malformed message
//! and an illegal action are different faults (STYLE.md: wire action vs domain action).

use pitboss_protocol as wire;
use pitboss_rules::{self as rules, CardSource, Phase, Seat, View};

/// Fills `out` with `view` (reusing its vectors, so a decision does not allocate after warm-up).
pub fn fill_view<S: CardSource>(view: &View<'_, S>, out: &mut wire::SeatView) {
    out.seat = view.seat().0;
    out.round = view.round();
    out.phase = match view.phase() {
        Phase::Draw(_) => wire::Phase::Draw,
        _ => wire::Phase::Bet,
    };
    out.button = view.button().0;
    out.pot = view.pot();
    out.cards.clear();
    out.cards.extend_from_slice(view.own_down_cards());
    out.board = view.community();
    let n = view.seat_count();
    out.seats.resize_with(n, Default::default);
    for (i, st) in out.seats.iter_mut().enumerate() {
        let s = Seat(i as u8);
        st.stack = view.stack(s);
        st.bet = view.bet(s);
        st.contributed = view.contributed(s);
        st.folded = view.folded(s);
        st.up.clear();
        st.up.extend_from_slice(view.up_cards(s));
        st.draws.clear();
        st.draws.extend_from_slice(view.draw_counts(s));
    }
}

pub fn legal(l: &rules::Legal) -> wire::LegalActions {
    wire::LegalActions {
        fold: l.fold,
        check: l.check,
        call: l.call,
        raise: l.raise.map(|r| wire::RaiseOption {
            kind: raise_kind(r.kind),
            min_to: r.min_to,
            max_to: r.max_to,
        }),
        bring_in: l.bring_in,
        discard: l.discard.map(|h| h.len().min(5) as u8),
    }
}

fn raise_kind(k: rules::RaiseKind) -> wire::RaiseKind {
    match k {
        rules::RaiseKind::Bet => wire::RaiseKind::Bet,
        rules::RaiseKind::Raise => wire::RaiseKind::Raise,
        rules::RaiseKind::Complete => wire::RaiseKind::Complete,
    }
}

/// A rules event (already redacted for the receiving seat) on the wire.
pub fn event(e: rules::Event) -> wire::Event {
    use rules::Event as E;
    use wire::Event as W;
    match e {
        E::Round { round } => W::Round { round },
        E::Ante {
            seat,
            amount,
            all_in,
        } => W::Ante {
            seat: seat.0,
            amount,
            all_in,
        },
        E::Blind {
            seat,
            blind,
            amount,
            all_in,
        } => W::Blind {
            seat: seat.0,
            blind: match blind {
                rules::Blind::Small => wire::Blind::Small,
                rules::Blind::Big => wire::Blind::Big,
            },
            amount,
            all_in,
        },
        E::Deal { seat, card, up } => W::Deal {
            seat: seat.0,
            card,
            up,
        },
        E::Community { card } => W::Community { card },
        E::BringIn {
            seat,
            amount,
            all_in,
        } => W::BringIn {
            seat: seat.0,
            amount,
            all_in,
        },
        E::Fold { seat } => W::Fold { seat: seat.0 },
        E::Check { seat } => W::Check { seat: seat.0 },
        E::Call {
            seat,
            amount,
            all_in,
        } => W::Call {
            seat: seat.0,
            amount,
            all_in,
        },
        E::Raise {
            seat,
            kind,
            to,
            all_in,
        } => W::Raise {
            seat: seat.0,
            kind: raise_kind(kind),
            to,
            all_in,
        },
        E::Discard { seat, count, cards } => W::Discard {
            seat: seat.0,
            count,
            cards,
        },
        E::Reshuffle { cards } => W::Reshuffle { cards },
        E::Return { seat, amount } => W::Return {
            seat: seat.0,
            amount,
        },
        E::Show { seat, cards } => W::Show {
            seat: seat.0,
            cards,
        },
        E::Muck { seat } => W::Muck { seat: seat.0 },
        E::Award {
            seat,
            pot,
            share,
            amount,
        } => W::Award {
            seat: seat.0,
            pot,
            share: match share {
                rules::Share::Whole => wire::Share::Whole,
                rules::Share::High => wire::Share::High,
                rules::Share::Low => wire::Share::Low,
            },
            amount,
        },
    }
}

/// A full wire event as `viewer` may see it: the wire image of `rules::Event::redacted_for`
/// (others' face-down cards and discards hidden). The test `redaction_matches_the_rules` keeps the
/// two in step.
#[inline]
pub fn redact(e: &wire::Event, viewer: u8) -> wire::Event {
    match *e {
        wire::Event::Deal {
            seat, up: false, ..
        } if seat != viewer => wire::Event::Deal {
            seat,
            card: None,
            up: false,
        },
        wire::Event::Discard { seat, count, .. } if seat != viewer => wire::Event::Discard {
            seat,
            count,
            cards: None,
        },
        e => e,
    }
}

/// [`redact`] in place: only the few events that hide something are touched, so a seat's copy of
/// the event list is a memcpy plus a scan.
#[inline]
pub fn redact_in_place(e: &mut wire::Event, viewer: u8) {
    match e {
        wire::Event::Deal {
            seat,
            up: false,
            card,
        } if *seat != viewer => *card = None,
        wire::Event::Discard { seat, cards, .. } if *seat != viewer => *cards = None,
        _ => {}
    }
}

/// A wire action as a domain action. Discards of cards not held, or listed twice, are left for
/// the rules to refuse (as illegal), except duplicates, which cannot be expressed as a set.
pub fn action(a: &wire::Action) -> Option<rules::Action> {
    Some(match a {
        wire::Action::Fold => rules::Action::Fold,
        wire::Action::Check => rules::Action::Check,
        wire::Action::Call => rules::Action::Call,
        wire::Action::Raise { to } => rules::Action::Raise { to: *to },
        wire::Action::BringIn => rules::Action::BringIn,
        wire::Action::Discard { cards } => {
            let set: pitboss_cards::CardSet = cards.iter().collect();
            if set.len() as usize != cards.len() {
                return None;
            }
            rules::Action::Discard { cards: set }
        }
    })
}

/// The wire description of a game.
pub fn game_info(g: &rules::Game) -> wire::GameInfo {
    wire::GameInfo {
        variant: match g.variant {
            rules::Variant::TripleDraw => "triple-draw",
            rules::Variant::StudHiLo => "stud-hi-lo",
        }
        .into(),
        structure: match g.structure {
            rules::Structure::FixedLimit => "fixed-limit",
            rules::Structure::PotLimit => "pot-limit",
            rules::Structure::NoLimit => "no-limit",
        }
        .into(),
        ante: g.stakes.ante,
        small_blind: g.stakes.small_blind,
        big_blind: g.stakes.big_blind,
        bring_in: g.stakes.bring_in,
        small_bet: g.stakes.small_bet,
        big_bet: g.stakes.big_bet,
        cap: g.options.cap,
        heads_up_uncapped: g.options.heads_up_uncapped,
        ace_five_straight: g.options.ace_five_straight,
        reveal: match g.options.reveal {
            rules::Reveal::Auto => "auto",
            rules::Reveal::All => "all",
        }
        .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::Card;
    use pitboss_rules::{Event, RaiseKind, Share};

    #[test]
    fn redaction_matches_the_rules() {
        let c: Card = "As".parse().unwrap();
        let set: pitboss_cards::CardSet = [c].iter().collect();
        let events = [
            Event::Deal {
                seat: Seat(0),
                card: Some(c),
                up: false,
            },
            Event::Deal {
                seat: Seat(1),
                card: Some(c),
                up: true,
            },
            Event::Discard {
                seat: Seat(0),
                count: 1,
                cards: Some(set),
            },
            Event::Show {
                seat: Seat(0),
                cards: set,
            },
            Event::Community { card: c },
            Event::Raise {
                seat: Seat(0),
                kind: RaiseKind::Bet,
                to: 5,
                all_in: false,
            },
            Event::Award {
                seat: Seat(1),
                pot: 0,
                share: Share::Low,
                amount: 3,
            },
        ];
        for e in events {
            for viewer in 0..3u8 {
                assert_eq!(
                    redact(&event(e), viewer),
                    event(e.redacted_for(Seat(viewer))),
                    "{e:?} for seat {viewer}"
                );
                let mut w = event(e);
                redact_in_place(&mut w, viewer);
                assert_eq!(w, event(e.redacted_for(Seat(viewer))), "{e:?} in place");
            }
        }
    }
}
