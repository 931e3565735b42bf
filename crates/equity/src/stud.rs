//! Seven card stud hi/lo, eight or better: the pot share of one seat's holding.
//!
//! Every player ends with seven cards (six and the community card when the deck runs short). The
//! unknown cards — the opponents' face-down cards and everybody's cards still to come — are drawn
//! from the cards this seat has not seen. When the number of possible outcomes is at most
//! [`Config::exact_limit`] they are all counted (heads-up seventh street: at most C(41, 3) = 10,660
//! opponent holdings); otherwise [`Config::samples`] outcomes are sampled.
//!
//! Ranges: an optional weight function gives each opponent's *current* holding (its face-down
//! cards with its up cards) a relative likelihood, e.g. from how it has bet. Cards still to come
//! are never weighted: nobody knows them.

use pitboss_cards::eval::{ace_to_five_8, high, AceFiveValue, HighValue};
use pitboss_cards::{Card, CardSet};

use crate::sample::{Pool, Tally};
use crate::stud_ranks;
use crate::{Config, EquityError};

/// An opponent as this seat sees it: its up cards and how many face-down cards it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StudOpponent {
    pub up: CardSet,
    /// Face-down cards held now (2 from third to sixth street, 3 on seventh).
    pub hidden: u8,
}

/// One seat's information at a decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudSpot {
    /// This seat's own cards, down and up (not the community card).
    pub hero: CardSet,
    /// The community card of seventh street, when the deck ran short.
    pub board: Option<Card>,
    /// The opponents still in the hand (1 to 7).
    pub opponents: Vec<StudOpponent>,
    /// Cards seen and out of play: folded players' up cards, cards shown.
    pub dead: CardSet,
}

/// The worth of the holding. Halves are shared among tied players; the pot share counts the low
/// half only when some player makes a qualifying low (otherwise the high hand takes it all).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StudEquity {
    /// Probability of winning the whole pot alone.
    pub scoop: f64,
    /// Expected fraction of the high half won.
    pub high: f64,
    /// Expected fraction of the low half won (0 when nobody qualifies).
    pub low: f64,
    /// Expected share of the pot (the number to compare with pot odds).
    pub share: f64,
    /// Standard error of `share` (0 when exact).
    pub std_err: f64,
    /// Outcomes counted or sampled.
    pub samples: u64,
    /// Whether every outcome was counted.
    pub exact: bool,
}

/// A weight for an opponent's current holding: `(opponent index, its down and up cards)`.
pub type Weight<'a> = &'a dyn Fn(usize, CardSet) -> f64;

type Value = (HighValue, Option<AceFiveValue>);

const MAX_GROUPS: usize = 15;

/// A run of unknown cards that goes to one player: `owner` 0 is this seat, `i + 1` opponent `i`;
/// `current` marks an opponent's face-down cards (weighted by the range).
#[derive(Clone, Copy)]
struct Group {
    owner: usize,
    count: u32,
    current: bool,
}

struct Setup {
    hands: [CardSet; 8],
    players: usize,
    groups: [Group; MAX_GROUPS],
    n_groups: usize,
    unseen: CardSet,
    /// Each player still missing a card gets the same last card (eight-handed seventh street).
    shared: bool,
}

fn setup(spot: &StudSpot) -> Result<Setup, EquityError> {
    let n = spot.opponents.len();
    if !(1..=7).contains(&n) {
        return Err(EquityError::Opponents(n));
    }
    let mut seen = CardSet::EMPTY;
    let mut add = |s: CardSet| -> Result<(), EquityError> {
        if let Some(c) = seen.intersection(s).iter().next() {
            return Err(EquityError::DuplicateCard(c));
        }
        seen = seen.union(s);
        Ok(())
    };
    let board: CardSet = spot.board.into_iter().collect();
    add(spot.hero)?;
    add(board)?;
    for o in &spot.opponents {
        add(o.up)?;
    }
    add(spot.dead.difference(spot.hero))?;
    let own = 7 - board.len();
    let mut hands = [CardSet::EMPTY; 8];
    hands[0] = spot.hero.union(board);
    let mut groups = [Group {
        owner: 0,
        count: 0,
        current: false,
    }; MAX_GROUPS];
    let mut n_groups = 0;
    let mut push = |g: Group| {
        if g.count > 0 {
            groups[n_groups] = g;
            n_groups += 1;
        }
    };
    if spot.hero.len() > own {
        return Err(EquityError::TooManyCards {
            player: 0,
            cards: spot.hero.len(),
            max: own,
        });
    }
    push(Group {
        owner: 0,
        count: own - spot.hero.len(),
        current: false,
    });
    for (i, o) in spot.opponents.iter().enumerate() {
        let held = o.up.len() + u32::from(o.hidden);
        if held > own {
            return Err(EquityError::TooManyCards {
                player: i + 1,
                cards: held,
                max: own,
            });
        }
        hands[i + 1] = o.up.union(board);
        push(Group {
            owner: i + 1,
            count: u32::from(o.hidden),
            current: true,
        });
        push(Group {
            owner: i + 1,
            count: own - held,
            current: false,
        });
    }
    let unseen = CardSet::FULL.difference(seen);
    let needed: u32 = groups[..n_groups].iter().map(|g| g.count).sum();
    let mut shared = false;
    if needed > unseen.len() {
        // The deck cannot give everyone a last card: one community card replaces them.
        let missing = groups[..n_groups].iter().filter(|g| !g.current).count() as u32;
        if needed - missing + 1 > unseen.len() || !board.is_empty() {
            return Err(EquityError::DeckExhausted {
                needed,
                left: unseen.len(),
            });
        }
        shared = true;
        for g in groups[..n_groups].iter_mut().filter(|g| !g.current) {
            g.count -= 1;
        }
    }
    Ok(Setup {
        hands,
        players: n + 1,
        groups,
        n_groups,
        unseen,
        shared,
    })
}

#[inline]
fn value(cards: CardSet) -> Value {
    (high(cards), ace_to_five_8(cards))
}

/// `[share, scoop, high, low]` of player 0 against players `1..values.len()`.
#[inline]
fn outcome_exact(values: &[Value]) -> [f64; 4] {
    let h0 = values[0].0;
    let l0 = values[0].1;
    let best_h = values.iter().map(|v| v.0).max().unwrap_or(h0);
    let best_l = values.iter().map(|v| v.1).max().unwrap_or(l0);
    if h0 < best_h && l0 < best_l {
        return [0.0; 4];
    }
    let h_ties = values.iter().filter(|v| v.0 == best_h).count() as f64;
    let hs = if h0 == best_h { 1.0 / h_ties } else { 0.0 };
    if best_l.is_none() {
        return [hs, f64::from(u8::from(hs == 1.0)), hs, 0.0];
    }
    let l_ties = values.iter().filter(|v| v.1 == best_l).count() as f64;
    let ls = if l0 == best_l { 1.0 / l_ties } else { 0.0 };
    let share = 0.5 * (hs + ls);
    [share, f64::from(u8::from(share == 1.0)), hs, ls]
}

/// Number of outcomes of dealing the groups from `left` cards (saturating).
fn outcomes(groups: &[Group], mut left: u64) -> u64 {
    let mut total: u64 = 1;
    for g in groups {
        let k = u64::from(g.count);
        let mut c: u64 = 1;
        for i in 0..k {
            c = c.saturating_mul(left - i) / (i + 1);
        }
        total = total.saturating_mul(c);
        left -= k;
    }
    total
}

/// The equity of `spot` (see the module docs), optionally with weighted opponent ranges.
///
/// # Errors
/// A card given twice, a player with too many cards, no or too many opponents, a deck that cannot
/// finish the hands, zero samples, or a range that weighs every sampled holding zero.
pub fn equity(
    spot: &StudSpot,
    cfg: &Config,
    weight: Option<Weight<'_>>,
) -> Result<StudEquity, EquityError> {
    let s = setup(spot)?;
    let groups = &s.groups[..s.n_groups];
    let count = outcomes(groups, u64::from(s.unseen.len()));
    if !s.shared && count <= cfg.exact_limit {
        let unknown: u32 = groups.iter().map(|g| g.count).sum();
        let river = s.players == 2
            && groups.iter().all(|g| g.owner == 1)
            && s.hands[0].len() == 7
            && s.hands[1].len() + unknown == 7;
        if river && weight.is_none() {
            return Ok(stud_ranks::heads_up_river(
                s.hands[0], s.hands[1], unknown, s.unseen,
            ));
        }
        return exact(&s, weight);
    }
    if cfg.samples == 0 {
        return Err(EquityError::NoSamples);
    }
    if s.players == 2 && !s.shared {
        return heads_up_sampled(&s, cfg, weight);
    }
    let mut pool = Pool::new(s.unseen, cfg.seed);
    let mut tally = Tally::<4>::new();
    let mut values = [value(s.hands[0]); 8];
    let hero_fixed = groups.first().is_none_or(|g| g.owner != 0) && !s.shared;
    if hero_fixed {
        values[0] = value(s.hands[0]);
    }
    for _ in 0..cfg.samples {
        pool.reset();
        let mut hands = s.hands;
        if s.shared {
            let c = pool.deal();
            for g in groups.iter().filter(|g| !g.current) {
                hands[g.owner].insert(c);
            }
        }
        let mut w = 1.0;
        for g in groups {
            let cards = pool.deal_set(g.count);
            hands[g.owner] = hands[g.owner].union(cards);
            if g.current {
                if let Some(f) = weight {
                    w *= f(g.owner - 1, hands[g.owner]);
                }
            }
        }
        if w <= 0.0 {
            continue;
        }
        let from = usize::from(hero_fixed);
        for (v, h) in values.iter_mut().zip(&hands).take(s.players).skip(from) {
            *v = value(*h);
        }
        tally.add(w, outcome_exact(&values[..s.players]));
    }
    if tally.w <= 0.0 {
        return Err(EquityError::NoSamples);
    }
    let [share, scoop, high, low] = tally.means();
    Ok(StudEquity {
        scoop,
        high,
        low,
        share,
        std_err: tally.std_err(),
        samples: tally.n,
        exact: false,
    })
}

/// Heads-up sampling, the common case, on a shorter path: the opponent's current cards dealt and
/// weighed first, then each player's cards to come in one go, the outcome tallied by category
/// ([`stud_ranks::Counts`]).
fn heads_up_sampled(
    s: &Setup,
    cfg: &Config,
    weight: Option<Weight<'_>>,
) -> Result<StudEquity, EquityError> {
    let groups = &s.groups[..s.n_groups];
    let need = |p: usize, current: bool| -> u32 {
        groups
            .iter()
            .filter(|g| g.owner == p && g.current == current)
            .map(|g| g.count)
            .sum()
    };
    let (need0, now1, later1) = (need(0, false), need(1, true), need(1, false));
    let mut pool = Pool::new(s.unseen, cfg.seed);
    let hero = value(s.hands[0]);
    let mut counts = stud_ranks::Counts::new(hero.0, hero.1);
    for _ in 0..cfg.samples {
        pool.reset();
        let (opp, w) = match weight {
            // Without a range the opponent's cards are dealt in one go.
            None => (s.hands[1].union(pool.deal_set(now1 + later1)), 1.0),
            Some(f) => {
                let opp_now = s.hands[1].union(pool.deal_set(now1));
                let w = f(0, opp_now);
                if w <= 0.0 {
                    continue;
                }
                (opp_now.union(pool.deal_set(later1)), w)
            }
        };
        let v1 = value(opp);
        let v0 = if need0 == 0 {
            hero
        } else {
            value(s.hands[0].union(pool.deal_set(need0)))
        };
        counts.add_pair(v0, v1, w);
    }
    if counts.is_empty() {
        return Err(EquityError::NoSamples);
    }
    Ok(counts.equity(false))
}

struct Enum<'a> {
    s: &'a Setup,
    pool: Vec<Card>,
    weight: Option<Weight<'a>>,
    values: [Value; 8],
    hero_fixed: bool,
    tally: Tally<4>,
}

impl Enum<'_> {
    /// Deals group `g` (its `left` cards still to choose, from pool positions `start..`), then the
    /// following groups; counts each complete outcome.
    fn pick(&mut self, g: usize, start: usize, left: u32, used: u64, hands: [CardSet; 8], w: f64) {
        let groups = &self.s.groups[..self.s.n_groups];
        if g == groups.len() {
            let from = usize::from(self.hero_fixed);
            let players = self.s.players;
            for (v, h) in self.values.iter_mut().zip(&hands).take(players).skip(from) {
                *v = value(*h);
            }
            let o = outcome_exact(&self.values[..self.s.players]);
            self.tally.add(w, o);
            return;
        }
        let grp = groups[g];
        if left == 0 {
            let mut w = w;
            if grp.current {
                if let Some(f) = self.weight {
                    w *= f(grp.owner - 1, hands[grp.owner]);
                }
                if w <= 0.0 {
                    return;
                }
            }
            let next = groups.get(g + 1).map_or(0, |n| n.count);
            self.pick(g + 1, 0, next, used, hands, w);
            return;
        }
        let n = self.pool.len();
        for i in start..n {
            if used & 1 << i != 0 {
                continue;
            }
            if n - i < left as usize {
                break;
            }
            let mut h = hands;
            h[grp.owner].insert(self.pool[i]);
            self.pick(g, i + 1, left - 1, used | 1 << i, h, w);
        }
    }
}

fn exact(s: &Setup, weight: Option<Weight<'_>>) -> Result<StudEquity, EquityError> {
    let groups = &s.groups[..s.n_groups];
    let hero_fixed = groups.first().is_none_or(|g| g.owner != 0);
    let mut e = Enum {
        s,
        pool: s.unseen.iter().collect(),
        weight,
        values: [value(s.hands[0]); 8],
        hero_fixed,
        tally: Tally::new(),
    };
    if hero_fixed {
        e.values[0] = value(s.hands[0]);
    }
    let first = groups.first().map_or(0, |g| g.count);
    e.pick(0, 0, first, 0, s.hands, 1.0);
    if e.tally.w <= 0.0 {
        return Err(EquityError::NoSamples);
    }
    let [share, scoop, high, low] = e.tally.means();
    Ok(StudEquity {
        scoop,
        high,
        low,
        share,
        std_err: 0.0,
        samples: e.tally.n,
        exact: true,
    })
}
