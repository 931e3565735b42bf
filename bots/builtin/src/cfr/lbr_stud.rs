//! `lbr` in heads-up fixed-limit stud hi/lo: the same local best response as in triple draw
//! ([`super::lbr`]) against the stud strategy of `cfr-eq`.
//!
//! The opponent's range is its hidden cards: the two dealt down on third street and, from seventh
//! street, the last one. Its up cards are seen, so a sampled hand is those hidden cards alone
//! (1,000 of them, each weighted by the probability that the strategy holding them, with the up
//! cards it showed, would have acted as it did); a card that turns up elsewhere rules out every
//! sample that held it, and seventh street's down card is dealt to each sample from the cards
//! neither it nor `lbr` has seen. At a decision the equity against a sample plays the hand out:
//! the cards still to come dealt to both from the rest, each showdown split high and low.

use pitboss_cards::{Card, CardSet};
use pitboss_cfr::stud;
use pitboss_cfr::td::Rng;
use pitboss_cfr::tree::{Next, CALL, FOLD, HALF};
use pitboss_protocol::{ActRequest, Action, Event, SeatNo};

use super::lbr::{deal, legal_at, policy, PARTICLES};
use super::reader::{Reader, Step};
use super::{solved, Game, Solved};
use crate::util;

/// One set of hidden cards the opponent may hold.
#[derive(Clone, Copy, Debug)]
struct Particle {
    hidden: CardSet,
    w: f64,
}

/// A stud hand played against the strategy.
#[derive(Clone, Debug)]
pub(super) struct StudWalk {
    r: Reader,
    node: Option<u32>,
    /// `lbr`'s cards (down and up), its up cards, the opponent's up cards.
    mine: CardSet,
    my_up: CardSet,
    opp_up: CardSet,
    /// Down cards the opponent has been dealt.
    opp_down: u8,
    /// Empty until the first card the range needs is known (third street's deal).
    p: Vec<Particle>,
}

impl StudWalk {
    pub(super) fn new(seat: SeatNo) -> StudWalk {
        StudWalk {
            r: Reader::stud(seat),
            node: Some(0),
            mine: CardSet::EMPTY,
            my_up: CardSet::EMPTY,
            opp_up: CardSet::EMPTY,
            opp_down: 0,
            p: Vec::new(),
        }
    }

    /// Cards seen by `lbr`: its own and the opponent's up cards.
    fn seen(&self) -> CardSet {
        self.mine.union(self.opp_up)
    }

    /// Every sample holds as many hidden cards as the opponent was dealt down, none of them seen
    /// by `lbr`.
    fn fill(&mut self, rng: &mut Rng) {
        let seen = self.seen();
        if self.p.is_empty() {
            self.p = vec![
                Particle {
                    hidden: CardSet::EMPTY,
                    w: 1.0,
                };
                PARTICLES
            ];
        }
        for q in &mut self.p {
            while q.hidden.len() < u32::from(self.opp_down) {
                let c = deal(rng, seen.union(q.hidden));
                q.hidden.insert(c);
            }
        }
    }

    /// `c` was seen: no sample holds it.
    fn exclude(&mut self, c: Card) {
        for q in &mut self.p {
            if q.hidden.contains(c) {
                q.w = 0.0;
            }
        }
    }

    /// The opponent's order class on this street (`lbr`'s order, seen from the other seat).
    fn opp_order(&self) -> u8 {
        let first = self.r.firsts.map(u8::from);
        stud::order_class(0, self.r.street, &first)
    }

    /// The opponent took tree action `a` at node `n`.
    fn acted(&mut self, s: &Solved, n: u32, a: usize, rng: &mut Rng) {
        self.fill(rng);
        let node = s.tree.nodes[n as usize];
        let legal = legal_at(&node, 3);
        let order = self.opp_order();
        for q in &mut self.p {
            if q.w > 0.0 {
                let class = stud::class(q.hidden.union(self.opp_up), self.my_up, node.round);
                let i = s.strategy.stud_infoset(n, class, order);
                q.w *= policy(s.strategy.at(i), &legal[..3])[a];
            }
        }
        self.settle();
    }

    /// As in triple draw ([`super::lbr::settle`]).
    fn settle(&mut self) {
        super::lbr::settle(&mut self.p, |q| q.w, |q, w| q.w = w);
    }

    /// Reads the events since the last decision: cards dealt, and the betting down the tree
    /// (the opponent's actions weigh the range).
    pub(super) fn follow(&mut self, events: &[Event], rng: &mut Rng) {
        let s = solved(Game::StudFl);
        for e in events {
            if let Event::Deal { seat, card, up } = *e {
                let mine = seat == self.r.seat;
                match card {
                    Some(c) if mine => {
                        self.mine.insert(c);
                        if up {
                            self.my_up.insert(c);
                        }
                        self.exclude(c);
                    }
                    Some(c) => {
                        self.opp_up.insert(c);
                        self.exclude(c);
                    }
                    None if !mine => self.opp_down += 1,
                    None => {}
                }
                continue;
            }
            let node = self.node.map(|n| &s.tree.nodes[n as usize]);
            let Step::Act { p, a, .. } = self.r.read(e, Game::StudFl, node) else {
                continue;
            };
            let Some(n) = self.node else {
                continue;
            };
            let node = s.tree.nodes[n as usize];
            if usize::from(node.player) != p {
                self.node = None;
                continue;
            }
            if !self.r.mine(p) && node.next[a] != Next::Illegal {
                self.acted(s, n, a, rng);
            }
            self.node = match node.next[a] {
                Next::Node(m) => Some(m),
                _ => None,
            };
        }
    }

    /// Brings the cards up to date with the view (its own up cards, which the deal events give
    /// too; the view is the authority).
    fn sync(&mut self, req: &ActRequest) {
        let me = usize::from(self.r.seat);
        let Some(st) = req.view.seats.get(me) else {
            return;
        };
        self.my_up = st.up.iter().collect();
        for &c in req.view.cards.iter().chain(&st.up) {
            if self.mine.insert(c) {
                self.exclude(c);
            }
        }
        if let Some(o) = req.view.seats.get(1 - me.min(1)) {
            for &c in &o.up {
                if self.opp_up.insert(c) {
                    self.exclude(c);
                }
            }
        }
    }

    /// The local best response at the node reached (or the strategy's own play on a street it
    /// does not answer on, bit `r` of `rounds`), `None` off the tree.
    pub(super) fn decide(&mut self, req: &ActRequest, rounds: u8, rng: &mut Rng) -> Option<Action> {
        self.sync(req);
        self.r.first_to_act();
        let s = solved(Game::StudFl);
        let n = self.node?;
        let node = s.tree.nodes[n as usize];
        let round = node.round;
        if node.player != self.r.me || self.mine.len() != 3 + u32::from(round) {
            return None;
        }
        let legal = legal_at(&node, 3);
        if rounds & (1 << round) == 0 {
            let my_order = stud::order_class(0, round, &self.r.firsts.map(|f| u8::from(!f)));
            let class = stud::class(self.mine, self.opp_up, round);
            let p = policy(
                s.strategy.at(s.strategy.stud_infoset(n, class, my_order)),
                &legal[..3],
            );
            let u = f64::from(rng.unit());
            let mut acc = 0.0;
            let mut a = CALL;
            for (b, &x) in p.iter().enumerate().take(3) {
                if legal[b] {
                    acc += x;
                    a = b;
                    if u < acc {
                        break;
                    }
                }
            }
            return self.play(req, a);
        }
        self.fill(rng);
        let me = usize::from(self.r.me);
        let (mine_in, level) = (node.contrib[me], node.contrib[1 - me]);
        let raise = match node.next[HALF] {
            Next::Node(m) => Some((m, s.tree.nodes[m as usize])),
            _ => None,
        };
        let order = self.opp_order();
        let seen = self.seen();
        let (mut total, mut eq, mut ev_raise) = (0.0, 0.0, 0.0);
        for q in &self.p {
            if q.w <= 0.0 {
                continue;
            }
            let share = play_out(
                self.mine,
                q.hidden.union(self.opp_up),
                seen.union(q.hidden),
                rng,
            );
            total += q.w;
            eq += q.w * share;
            if let Some((m, next)) = raise {
                let l = legal_at(&next, 3);
                let class = stud::class(q.hidden.union(self.opp_up), self.my_up, round);
                let fold = policy(
                    s.strategy.at(s.strategy.stud_infoset(m, class, order)),
                    &l[..3],
                )[FOLD];
                let stake = f64::from(node.raise_to[HALF]);
                ev_raise +=
                    q.w * (fold * f64::from(level) + (1.0 - fold) * stake * (2.0 * share - 1.0));
            }
        }
        if total <= 0.0 {
            return None;
        }
        let eq = eq / total;
        let mut ev = [f64::NEG_INFINITY; 3];
        ev[CALL] = f64::from(level) * (2.0 * eq - 1.0);
        if legal[FOLD] {
            ev[FOLD] = -f64::from(mine_in);
        }
        if raise.is_some() {
            ev[HALF] = ev_raise / total;
        }
        let mut best = CALL;
        for a in [FOLD, HALF] {
            if ev[a] > ev[best] + 1e-9 {
                best = a;
            }
        }
        self.play(req, best)
    }

    /// The real action for tree action `a`, remembered as `lbr`'s choice.
    fn play(&mut self, req: &ActRequest, a: usize) -> Option<Action> {
        let action = match a {
            FOLD if req.legal.fold => Action::Fold,
            FOLD | CALL => util::passive(&req.legal),
            _ => util::min_raise(&req.legal)?,
        };
        self.r.chose = Some(a);
        Some(action)
    }
}

/// `lbr`'s share of the pot against the opponent's `opp` cards: the cards still to come (to seven
/// each) dealt from those not in `dead`, the showdown split high and low.
fn play_out(mut mine: CardSet, mut opp: CardSet, mut dead: CardSet, rng: &mut Rng) -> f64 {
    for h in [&mut mine, &mut opp] {
        while h.len() < 7 {
            let c = deal(rng, dead);
            dead.insert(c);
            h.insert(c);
        }
    }
    f64::from(stud::share(mine, opp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The range after the bring-in (the opponent, with a 3 up) completes is the posterior of
    /// Bayes' rule over every pair of hidden cards it could hold: the sampled mean of its
    /// third-street class is the exact one.
    #[test]
    fn the_range_is_the_posterior_of_the_strategy() {
        let s = solved(Game::StudFl);
        let cards =
            |t: &str| -> CardSet { pitboss_cards::parse_cards(t).unwrap().into_iter().collect() };
        let (mine, my_up, opp_up) = (cards("Kc Qd 9h"), cards("9h"), cards("3s"));
        let legal = legal_at(&s.tree.nodes[0], 3);
        let base = |hidden: CardSet| f64::from(stud::class(hidden.union(opp_up), my_up, 0) / 2);
        let completes = |hidden: CardSet| {
            let class = stud::class(hidden.union(opp_up), my_up, 0);
            policy(
                s.strategy.at(s.strategy.stud_infoset(0, class, 0)),
                &legal[..3],
            )[HALF]
        };
        let free: Vec<Card> = CardSet::FULL
            .difference(mine.union(opp_up))
            .iter()
            .collect();
        let (mut w, mut x, mut prior) = (0.0, 0.0, 0.0);
        for a in 0..free.len() {
            for b in a + 1..free.len() {
                let h: CardSet = [free[a], free[b]].into_iter().collect();
                w += completes(h);
                x += completes(h) * base(h);
                prior += base(h);
            }
        }
        let exact = x / w;
        let prior = prior / (free.len() * (free.len() - 1) / 2) as f64;
        let mut rng = Rng::new(5);
        let mut got = 0.0;
        for _ in 0..10 {
            let mut walk = StudWalk::new(0);
            walk.mine = mine;
            walk.my_up = my_up;
            walk.opp_up = opp_up;
            walk.opp_down = 2;
            // The opponent, not `lbr`, is the bring-in: it completes at the root.
            walk.r.firsts[0] = false;
            walk.acted(s, 0, HALF, &mut rng);
            assert!(walk
                .p
                .iter()
                .all(|q| q.hidden.len() == 2 && q.hidden.intersection(walk.seen()).is_empty()));
            let (t, m) = walk
                .p
                .iter()
                .fold((0.0, 0.0), |(t, m), q| (t + q.w, m + q.w * base(q.hidden)));
            got += m / t / 10.0;
        }
        assert!(
            (exact - prior).abs() > 0.1,
            "the completion says something: prior {prior}, posterior {exact}"
        );
        assert!(
            (got - exact).abs() < 0.1,
            "sampled {got}, exact {exact} (prior {prior})"
        );
    }
}
