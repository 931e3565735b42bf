//! Showdown: pots from contributions, the order of showing with auto-muck, and the awards with
//! the odd-chip rules of docs/RULES.md.

use pitboss_cards::eval::{self, AceFiveValue};
use pitboss_cards::{Card, CardSet};

use crate::event::{Event, Share};
use crate::game::{Chips, Reveal, Variant, MAX_SEATS};
use crate::seat::Seat;
use crate::source::CardSource;

use super::Hand;

/// A pot: its chips and the seats that may win it (bit per seat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pot {
    pub amount: Chips,
    pub eligible: u8,
}

/// A player's hand for settlement: one value per half (triple draw uses `high` for its low value).
#[derive(Clone, Copy, Debug, Default)]
struct Strength {
    high: u32,
    low: Option<AceFiveValue>,
}

impl<S: CardSource> Hand<S> {
    /// All cards a seat plays with: its own plus the community card.
    pub(crate) fn playing_cards(&self, s: Seat) -> CardSet {
        let i = s.index();
        let mut set = self.down[i].set().union(self.up[i].set());
        if let Some(c) = self.community {
            set.insert(c);
        }
        set
    }

    /// Splits all contributions into a main pot and side pots at each all-in level.
    pub(crate) fn pots(&self) -> ([Pot; MAX_SEATS], usize) {
        let mut levels: [Chips; MAX_SEATS] = [0; MAX_SEATS];
        let mut nl = 0;
        for s in self.live() {
            let t = self.total[s.index()];
            if !levels[..nl].contains(&t) {
                levels[nl] = t;
                nl += 1;
            }
        }
        levels[..nl].sort_unstable();
        let mut pots = [Pot::default(); MAX_SEATS];
        let mut np = 0;
        let mut prev = 0;
        for &level in &levels[..nl] {
            let amount: Chips = self
                .seats()
                .map(|s| {
                    let t = self.total[s.index()];
                    t.min(level) - t.min(prev)
                })
                .sum();
            let eligible = self
                .live()
                .filter(|s| self.total[s.index()] >= level)
                .fold(0u8, |m, s| m | 1 << s.0);
            if amount > 0 {
                pots[np] = Pot { amount, eligible };
                np += 1;
            }
            prev = level;
        }
        let above: Chips = self
            .seats()
            .map(|s| self.total[s.index()].saturating_sub(prev))
            .sum();
        if np > 0 {
            pots[np - 1].amount += above;
        }
        (pots, np)
    }

    fn strength(&self, s: Seat) -> Strength {
        let cards = self.playing_cards(s);
        match self.game.variant {
            Variant::TripleDraw => Strength {
                high: eval::deuce_to_seven(cards, self.game.options.ace_five_straight).get(),
                low: None,
            },
            Variant::StudHiLo => Strength {
                high: eval::high(cards).get(),
                low: eval::ace_to_five_8(cards),
            },
        }
    }

    /// Shows and mucks in order, then awards every pot.
    pub(crate) fn showdown(&mut self) {
        let (pots, np) = self.pots();
        let pots = &pots[..np];
        let mut st = [Strength::default(); MAX_SEATS];
        for s in self.live().collect::<arrayvec_like::Seats>().iter() {
            st[s.index()] = self.strength(*s);
        }
        let n = self.n;
        let start = match self.last_betting() {
            Some((Some(aggressor), _)) if !self.folded[aggressor.index()] => aggressor,
            Some((_, first)) => first,
            None => match self.game.variant {
                Variant::TripleDraw => self.button.next(n),
                Variant::StudHiLo => self.best_board_seat(),
            },
        };
        for k in 0..n {
            let s = Seat((start.0 + k) % n);
            if self.folded[s.index()] {
                continue;
            }
            let show = self.game.options.reveal == Reveal::All
                || self.stack[s.index()] == 0
                || pots.iter().any(|p| self.contends(s, p, &st));
            self.shown[s.index()] = show;
            if show {
                let cards = self.down[s.index()].set().union(self.up[s.index()].set());
                self.events.push(Event::Show { seat: s, cards });
            } else {
                self.events.push(Event::Muck { seat: s });
            }
        }
        for (j, p) in pots.iter().enumerate() {
            self.award(j as u8, p, &st);
        }
        self.end();
    }

    /// Whether `s` beats or ties the best hand shown so far among `p`'s players, for either half.
    fn contends(&self, s: Seat, p: &Pot, st: &[Strength; MAX_SEATS]) -> bool {
        if p.eligible & (1 << s.0) == 0 {
            return false;
        }
        let shown = || {
            (0..self.n)
                .map(Seat)
                .filter(|o| p.eligible & (1 << o.0) != 0 && self.shown[o.index()])
        };
        let best_high = shown().map(|o| st[o.index()].high).max();
        let me = st[s.index()];
        if best_high.is_none_or(|b| me.high >= b) {
            return true;
        }
        match me.low {
            Some(low) => shown()
                .filter_map(|o| st[o.index()].low)
                .max()
                .is_none_or(|b| low >= b),
            None => false,
        }
    }

    fn award(&mut self, pot: u8, p: &Pot, st: &[Strength; MAX_SEATS]) {
        let contenders: arrayvec_like::Seats = self
            .seats()
            .filter(|s| p.eligible & (1 << s.0) != 0 && self.shown[s.index()])
            .collect();
        let best_high = contenders
            .iter()
            .map(|s| st[s.index()].high)
            .max()
            .expect("a contender");
        let highs: arrayvec_like::Seats = contenders
            .iter()
            .copied()
            .filter(|s| st[s.index()].high == best_high)
            .collect();
        let best_low = contenders.iter().filter_map(|s| st[s.index()].low).max();
        match best_low {
            None => self.split(pot, Share::Whole, p.amount, highs, false),
            Some(low) => {
                let lows: arrayvec_like::Seats = contenders
                    .iter()
                    .copied()
                    .filter(|s| st[s.index()].low == Some(low))
                    .collect();
                let low_half = p.amount / 2;
                self.split(pot, Share::High, p.amount - low_half, highs, false);
                self.split(pot, Share::Low, low_half, lows, true);
            }
        }
    }

    /// Splits `amount` among tied `winners`; odd chips by the rule of the game.
    fn split(
        &mut self,
        pot: u8,
        share: Share,
        amount: Chips,
        mut winners: arrayvec_like::Seats,
        low: bool,
    ) {
        let k = winners.len() as Chips;
        let n = self.n;
        match self.game.variant {
            Variant::TripleDraw => {
                let first = self.button.next(n);
                winners.sort_by_key(|s| (s.0 + n - first.0) % n);
            }
            Variant::StudHiLo => {
                let key = |s: &Seat| -> [Card; 5] {
                    let cards = self.playing_cards(*s);
                    let mut five = if low {
                        eval::ace_to_five_8_best_five(cards).expect("a low").1
                    } else {
                        eval::high_best_five(cards).1
                    };
                    five.sort_unstable_by(|a, b| b.cmp(a));
                    five
                };
                winners.sort_by(|a, b| key(b).cmp(&key(a)).then(a.0.cmp(&b.0)));
            }
        }
        let each = amount / k;
        let odd = amount % k;
        for (idx, s) in winners.iter().enumerate() {
            let a = each + Chips::from((idx as Chips) < odd);
            if a == 0 {
                continue;
            }
            self.stack[s.index()] += a;
            self.won[s.index()] += a;
            self.events.push(Event::Award {
                seat: *s,
                pot,
                share,
                amount: a,
            });
        }
    }
}

/// A tiny fixed-capacity seat list, so that showdown does not allocate.
mod arrayvec_like {
    use crate::game::MAX_SEATS;
    use crate::seat::Seat;

    #[derive(Clone, Copy, Debug)]
    pub struct Seats {
        seats: [Seat; MAX_SEATS],
        len: usize,
    }

    impl Seats {
        pub fn iter(&self) -> std::slice::Iter<'_, Seat> {
            self.seats[..self.len].iter()
        }
        pub fn len(&self) -> usize {
            self.len
        }
        pub fn sort_by_key<K: Ord>(&mut self, f: impl FnMut(&Seat) -> K) {
            self.seats[..self.len].sort_by_key(f)
        }
        pub fn sort_by(&mut self, f: impl FnMut(&Seat, &Seat) -> std::cmp::Ordering) {
            self.seats[..self.len].sort_by(f)
        }
    }

    impl FromIterator<Seat> for Seats {
        fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Seats {
            let mut s = Seats {
                seats: [Seat(0); MAX_SEATS],
                len: 0,
            };
            for x in iter {
                s.seats[s.len] = x;
                s.len += 1;
            }
            s
        }
    }
}
