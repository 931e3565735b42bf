//! What `equity` and `adaptive` share: reading a seat view into a query for `pitboss-equity`, the
//! per-round cache of its answer, and the betting rule that turns an equity into an action.
//!
//! Why one rule for both: `adaptive` is `equity` with its knobs ([`Knobs`]) moved per opponent, so
//! any difference between the two bots in a match is the adaptation.

use pitboss_cards::{Card, CardSet};
use pitboss_equity::draw::{self, DrawOpponent, DrawSpot};
use pitboss_equity::stud::{self, StudOpponent, StudSpot};
use pitboss_equity::Config;
use pitboss_protocol::{ActRequest, Action, Event, MatchStart, SeatView};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::{drawmemo, util};

/// Monte Carlo samples per equity in stud (exact instead when 1,500 outcomes or fewer remain).
const STUD_SAMPLES: u32 = 80;

/// Samples per triple-draw decision with two or more opponents (all keeps on the same samples).
const MULTIWAY_SAMPLES: u32 = 300;

/// How much better (pot share) another keep must look than the standard one to be chosen.
const KEEP_MARGIN: f64 = 0.04;

/// The knobs of the betting rule. [`Knobs::default`] is `equity`'s table; `adaptive` moves them.
#[derive(Clone, Copy, Debug)]
pub struct Knobs {
    /// Bet or raise for value above `fair + value * (1 - fair)` (fair = 1 / players in).
    pub value: f64,
    /// Equity subtracted per bet or raise an opponent made this round (their range is stronger
    /// than random).
    pub respect: f64,
    /// Extra equity wanted over the pot odds to call, per betting round still to come.
    pub margin: f64,
    /// Probability of betting a weak hand when checked to (a bluff or semi-bluff).
    pub bluff: f64,
    /// The value line shrinks by this fraction per betting round to come: with draws ahead,
    /// equities bunch up near fair share, so a good draw is already a value hand.
    pub early: f64,
    /// Whether a big pot- or no-limit stud bet from fifth street on (more than 0.6 of the pot and
    /// more than two big bets) counts for more respect than one bet (`adaptive`; see `overbet`).
    pub overbets: bool,
}

impl Knobs {
    /// `equity`'s table for a game. Triple draw wants more respect for a bet and a wider margin:
    /// a bettor there usually holds a made hand or a one-card draw, and equity against modelled
    /// hands overrates a draw that must still get there; stud equity already narrows a bettor's
    /// range (see `stud_range`).
    pub fn for_game(stud: bool) -> Knobs {
        if stud {
            Knobs {
                value: 0.28,
                respect: 0.07,
                margin: 0.025,
                bluff: 0.10,
                early: 0.15,
                overbets: false,
            }
        } else {
            Knobs {
                value: 0.3,
                respect: 0.08,
                margin: 0.035,
                bluff: 0.10,
                early: 0.3,
                overbets: false,
            }
        }
    }
}

/// The state of the equity bots between requests.
pub struct Core {
    pub rng: ChaCha8Rng,
    pub stud: Option<bool>,
    pub big_bet: Option<bool>,
    /// The game's big bet in chips (0 until `match_start`): a bet of two of them or less is a
    /// minimum-sized bet in the later stud rounds, whose size says nothing (see `overbet`).
    pub big_bet_chips: u64,
    pub ace_five_straight: bool,
    seed: u64,
    decisions: u64,
    /// Bets and raises by others this round, checks this round.
    pub raises: u8,
    pub checks: u8,
    /// Others who called a bet this round (a caller's range is better than random too).
    pub callers: u8,
    /// Bets and raises of each seat this hand: an aggressor's range is narrowed to good holdings.
    pub aggr: [u8; 8],
    /// The same bets and raises weighted by their size (triple draw's model of a bettor): in pot
    /// and no limit a raise of about the pot counts as two, a small one as one; in fixed limit
    /// every bet counts as one. Half-units.
    pub aggr_size: [u8; 8],
    /// `aggr_size` of this round only: a pat hand bet after the draw is narrowed by it.
    pub round_size: [u8; 8],
    /// Chips each seat put in this round, the pot as the events tell it, and the round's bet.
    round_in: [u64; 8],
    pot: u64,
    round_bet: u64,
    /// Seats that called a bet before the first draw (triple draw): not random holdings either.
    pub called_early: u8,
    /// Whether anyone bet this round (so that a call is a call of a bet, not of the blind).
    bet_this_round: bool,
    /// Cards shown this hand (dead for equity).
    pub shown: CardSet,
    /// Own discards this hand (not in the stub).
    pub discarded: CardSet,
    cache: Option<(u64, (u8, u8, u64), Cached)>,
}

#[derive(Clone, Copy)]
enum Cached {
    Share(f64),
    Keep(CardSet, f64),
}

impl Core {
    pub fn new(seed: u64) -> Core {
        Core {
            rng: ChaCha8Rng::seed_from_u64(seed),
            stud: None,
            big_bet: None,
            big_bet_chips: 0,
            ace_five_straight: false,
            seed,
            decisions: 0,
            raises: 0,
            checks: 0,
            callers: 0,
            aggr: [0; 8],
            aggr_size: [0; 8],
            round_size: [0; 8],
            round_in: [0; 8],
            pot: 0,
            round_bet: 0,
            called_early: 0,
            bet_this_round: false,
            shown: CardSet::EMPTY,
            discarded: CardSet::EMPTY,
            cache: None,
        }
    }

    pub fn match_start(&mut self, m: &MatchStart) {
        self.stud = Some(m.game.variant == "stud-hi-lo");
        self.big_bet = Some(m.game.structure != "fixed-limit");
        self.big_bet_chips = m.game.big_bet;
    }

    pub fn hand_start(&mut self) {
        self.raises = 0;
        self.checks = 0;
        self.callers = 0;
        self.aggr = [0; 8];
        self.aggr_size = [0; 8];
        self.round_size = [0; 8];
        self.round_in = [0; 8];
        self.pot = 0;
        self.round_bet = 0;
        self.called_early = 0;
        self.bet_this_round = false;
        self.shown = CardSet::EMPTY;
        self.discarded = CardSet::EMPTY;
        self.cache = None;
    }

    /// Reads the new events: this round's aggression and checks, shown cards, own discards.
    pub fn update(&mut self, req: &ActRequest) {
        let me = req.view.seat;
        let big = util::is_big_bet(self.big_bet, &req.legal);
        for e in &req.events {
            self.track_pot(e, me, big);
            match *e {
                Event::Round { .. } => {
                    self.raises = 0;
                    self.checks = 0;
                    self.callers = 0;
                    self.bet_this_round = false;
                }
                Event::Raise { seat, .. } if seat == me => self.bet_this_round = true,
                Event::Call { seat, .. } if seat != me && self.bet_this_round => {
                    self.callers = self.callers.saturating_add(1);
                    if util::me(&req.view).draws.is_empty() {
                        self.called_early |= 1 << (seat % 8);
                    }
                }
                Event::Raise { seat, .. } if seat != me => {
                    self.bet_this_round = true;
                    self.raises = self.raises.saturating_add(1);
                    let a = &mut self.aggr[usize::from(seat) % 8];
                    *a = a.saturating_add(1);
                }
                Event::Check { seat } if seat != me => self.checks = self.checks.saturating_add(1),
                Event::Show { cards, .. } => self.shown = self.shown.union(cards),
                Event::Discard {
                    seat,
                    cards: Some(c),
                    ..
                } if seat == me => self.discarded = self.discarded.union(c),
                _ => {}
            }
        }
    }

    /// Follows the chips of one event; for a raise by another seat, weighs it by its size (see
    /// `aggr_size`): the raise beyond the call as a fraction of the pot after the call.
    fn track_pot(&mut self, e: &Event, me: u8, big: bool) {
        let put = |core: &mut Core, seat: u8, amount: u64| {
            core.round_in[usize::from(seat) % 8] += amount;
            core.pot += amount;
            core.round_bet = core.round_bet.max(core.round_in[usize::from(seat) % 8]);
        };
        match *e {
            Event::Round { .. } => {
                self.round_in = [0; 8];
                self.round_size = [0; 8];
                self.round_bet = 0;
            }
            Event::Ante { amount, .. } => self.pot += amount,
            Event::Blind { seat, amount, .. }
            | Event::BringIn { seat, amount, .. }
            | Event::Call { seat, amount, .. } => put(self, seat, amount),
            Event::Raise { seat, to, .. } => {
                let i = usize::from(seat) % 8;
                let owed = self.round_bet.saturating_sub(self.round_in[i]);
                let after_call = (self.pot + owed).max(1);
                let raise = to.saturating_sub(self.round_bet);
                if seat != me {
                    let w = if !big || raise * 5 < after_call * 2 {
                        2
                    } else if raise * 5 < after_call * 4 {
                        3
                    } else {
                        4
                    };
                    self.aggr_size[i] = self.aggr_size[i].saturating_add(w);
                    self.round_size[i] = self.round_size[i].saturating_add(w);
                }
                put(self, seat, to.saturating_sub(self.round_in[i]));
            }
            Event::Return { seat, amount } => {
                let i = usize::from(seat) % 8;
                self.round_in[i] = self.round_in[i].saturating_sub(amount);
                self.pot = self.pot.saturating_sub(amount);
            }
            _ => {}
        }
    }

    /// A fresh seed for each equity query (deterministic given the bot's seed).
    fn next_seed(&mut self) -> u64 {
        self.decisions += 1;
        self.seed ^ self.decisions.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The pot share of this seat (stud), or of its best keep (triple draw) with that keep;
    /// `None` when the view is not one the engine can read (the caller then plays safe).
    /// `random_opp` lists opponents (by seat) whose draw counts carry no information, `doubted`
    /// those whose bets are not read by their size, nor in stud as strength even heads-up (their
    /// bets were often weak at showdowns), `trusted` those whose bets in stud narrow their range
    /// even multiway (their bets held up at showdowns). `equity` passes none of them.
    pub fn evaluate(
        &mut self,
        req: &ActRequest,
        random_opp: u64,
        doubted: u64,
        trusted: u64,
    ) -> Option<(f64, CardSet)> {
        let v = &req.view;
        let live: u64 = util::opponents(v).fold(0, |m, (i, _)| m | 1 << i);
        let key = (v.round, v.phase as u8, live);
        if let Some((hand, k, c)) = self.cache {
            if hand == req.hand && k == key {
                return Some(match c {
                    Cached::Share(s) => (s, CardSet::EMPTY),
                    Cached::Keep(keep, s) => (s, keep),
                });
            }
        }
        let stud = util::is_stud(self.stud, req);
        let seed = self.next_seed();
        let out = if stud {
            self.stud_share(v, seed, doubted, trusted)
                .map(|s| (s, CardSet::EMPTY))
        } else {
            self.draw_keep(v, random_opp, doubted, seed)
        };
        if let Some((s, keep)) = out {
            let c = if stud {
                Cached::Share(s)
            } else {
                Cached::Keep(keep, s)
            };
            self.cache = Some((req.hand, key, c));
        }
        out
    }

    /// The stud pot share. A bettor's range is narrowed (see `stud_range`) heads-up unless it is
    /// `doubted`, and multiway if it is `trusted`.
    fn stud_share(&self, v: &SeatView, seed: u64, doubted: u64, trusted: u64) -> Option<f64> {
        let hero: CardSet = util::own_cards(v).difference(v.board.into_iter().collect());
        let mut dead = self.shown.difference(hero);
        let mut opponents = Vec::with_capacity(7);
        let heads_up = util::opponents(v).count() == 1;
        // Bets and raises this hand of each opponent whose range they narrow.
        let mut aggr = [0u8; 8];
        let hidden = v.cards.len().min(3) as u8;
        for (i, s) in v.seats.iter().enumerate() {
            if i == usize::from(v.seat) {
                continue;
            }
            let up: CardSet = s.up.iter().collect();
            if s.folded {
                dead = dead.union(up);
            } else {
                let read = if heads_up {
                    doubted & 1 << i == 0
                } else {
                    trusted & 1 << i != 0
                };
                if read {
                    aggr[opponents.len()] = self.aggr[i % 8];
                }
                opponents.push(StudOpponent { up, hidden });
            }
        }
        let spot = StudSpot {
            hero,
            board: v.board,
            opponents,
            dead: dead.difference(v.board.into_iter().collect()),
        };
        let cfg = Config {
            samples: STUD_SAMPLES,
            exact_limit: 1_500,
            seed,
        };
        let weight = |i: usize, cards: CardSet| stud_range(aggr[i], cards);
        let w: Option<stud::Weight<'_>> = if aggr.iter().any(|a| *a > 0) {
            Some(&weight)
        } else {
            None
        };
        stud::equity(&spot, &cfg, w).ok().map(|e| e.share)
    }

    fn draw_keep(
        &self,
        v: &SeatView,
        random_opp: u64,
        doubted: u64,
        seed: u64,
    ) -> Option<(f64, CardSet)> {
        let hand: CardSet = v.cards.iter().collect();
        let mine = util::me(v).draws.len() as u8;
        let opponents: Vec<DrawOpponent> = util::opponents(v)
            .map(|(i, s)| {
                let left = 3u8.saturating_sub(s.draws.len() as u8);
                if random_opp & 1 << i != 0 {
                    DrawOpponent::unknown(None, left)
                } else if doubted & 1 << i != 0 {
                    // Bets that often turned out weak: counted, not weighed by their size.
                    let drew = s.draws.last().copied();
                    let called = self.called_early & 1 << (i % 8) != 0;
                    DrawOpponent::unknown(draw_range(self.aggr[i % 8], called, drew), left)
                } else {
                    let drew = s.draws.last().copied();
                    let called = self.called_early & 1 << (i % 8) != 0;
                    let a = self.aggr_size[i % 8].div_ceil(2);
                    let o = DrawOpponent::unknown(draw_range(a, called, drew), left);
                    // A hand modelled pat that bet this round beyond what made it pat: a better
                    // made hand the more it bet (a nine, an eight, a seven).
                    let now = self.round_size[i % 8].div_ceil(2);
                    let beyond = now.saturating_sub(drew.unwrap_or(0));
                    if o.drew == Some(0) && drew.is_some() && beyond > 0 {
                        o.with_bar(8 - beyond.min(3))
                    } else {
                        o
                    }
                }
            })
            .collect();
        let left = 3u8.saturating_sub(mine);
        if hand.len() != 5 || opponents.is_empty() || opponents.len() > 7 {
            return None;
        }
        let standard = draw::policy(hand, left);
        let mut keeps = if left == 0 {
            vec![hand]
        } else {
            draw::candidates(hand)
        };
        if !keeps.contains(&standard) && left > 0 {
            keeps.insert(0, standard);
        }
        let shares: Vec<f64> = if opponents.len() == 1 {
            // Heads-up: the memo (a handful of opponent states, reused across hands).
            keeps
                .iter()
                .map(|k| drawmemo::keep_equity(*k, left, &opponents, self.ace_five_straight))
                .collect::<Option<_>>()?
        } else {
            // Multiway the opponents' draw counts rarely repeat, so nothing is memoised: the
            // opponents are played out once per sample for every keep.
            let spot = DrawSpot {
                hand,
                draws_left: left,
                opponents,
                dead: self.discarded,
                ace_five_straight: self.ace_five_straight,
            };
            let cfg = Config {
                samples: MULTIWAY_SAMPLES,
                exact_limit: 0,
                seed,
            };
            draw::keep_equities(&spot, &keeps, &cfg)
                .ok()?
                .iter()
                .map(|e| e.share)
                .collect()
        };
        // The standard keep, unless another candidate is clearly better: the estimates carry
        // sampling noise, and a noisy argmax over six keeps would drift to keeps that only look
        // good by chance.
        let base = keeps
            .iter()
            .position(|k| *k == standard)
            .map_or(shares[0], |i| shares[i]);
        let mut best = (base + KEEP_MARGIN, standard);
        for (keep, s) in keeps.iter().zip(&shares) {
            if *s > best.0 {
                best = (*s, *keep);
            }
        }
        let share = if best.1 == standard { base } else { best.0 };
        Some((share, if left == 0 { hand } else { best.1 }))
    }

    /// A uniform number in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        f64::from(self.rng.next_u32()) / 4_294_967_296.0
    }

    /// The draw: throw what the best keep does not hold, at most `max` cards (the highest first).
    pub fn discard(&self, cards: &[Card], keep: CardSet, max: u8) -> Action {
        util::discard_keeping(cards, keep, max)
    }

    /// The betting rule. `share` is the pot share against random holdings; `knobs` the table.
    ///
    /// Facing no bet: bet for value above the value line (more often the further above), bluff
    /// with probability `bluff` from below fair share (more when checked to), else check. Facing a
    /// bet: raise above the value line raised by the round's aggression, call when the share less
    /// `respect` per opponent bet beats the pot odds by `margin` per round to come, else fold.
    /// Pot and no limit: bets of one half to one pot, the same sizes for bluffs and value.
    pub fn decide(&mut self, req: &ActRequest, share: f64, knobs: &Knobs) -> Action {
        let legal = &req.legal;
        let view = &req.view;
        let stud = util::is_stud(self.stud, req);
        let n = util::opponents(view).count().max(1) as f64;
        let fair = 1.0 / (n + 1.0);
        let rounds_left = if stud {
            4u8.saturating_sub(view.round)
        } else {
            3u8.saturating_sub(view.round)
        };
        let raises = f64::from(self.raises.min(2));
        let mixed = share + (self.uniform() - 0.5) * 0.06;
        // Pot- and no-limit triple draw against two or more opponents: value bets twice as thick,
        // since a big bet into several players is called by the better hands among them. (At the
        // six-handed 27td-pl tables of bots/README.md this did not make `equity` win against five
        // `lowball`s or `hilo`s: the measured difference was inside the noise.)
        let big = util::is_big_bet(self.big_bet, legal);
        let thick = if big && n >= 2.0 && !stud { 2.0 } else { 1.0 };
        let value_line = fair
            + thick
                * knobs.value
                * (1.0 - fair)
                * (1.0 - knobs.early * f64::from(rounds_left)).max(0.2);
        let facing = !(legal.check || legal.bring_in.is_some());
        // Respect and margin are in heads-up units (fair share 1/2) and scale with the fair share,
        // so that five opponents' raises do not take more than a multiway hand's whole equity.
        let scale = 2.0 * fair;
        let callers = f64::from(self.callers.min(3));
        let over = if knobs.overbets && stud && big {
            overbet(legal, view, self.big_bet_chips)
        } else {
            1.0
        };
        let eff = (mixed - knobs.respect * (raises * over + 0.5 * callers) * scale).max(0.0);
        let size = if self.uniform() < 0.5 { (1, 2) } else { (3, 4) };
        let to = |num, den| {
            if big {
                util::pot_fraction_to(view, num, den)
            } else {
                0
            }
        };
        if !facing {
            let strong = mixed > 0.85 + 0.1 * (1.0 - fair) && big;
            if mixed > value_line {
                let (a, b) = if strong { (1, 1) } else { size };
                if let Some(x) = util::raise_to(legal, to(a, b)) {
                    return x;
                }
            } else {
                // Bluff more when everyone checked to us, less into several players; a middling
                // hand bets too only when bluffing is worth much (opponents who fold a lot).
                let p = knobs.bluff * if self.checks > 0 { 1.5 } else { 1.0 } / n;
                let p = if mixed < fair { p } else { (p - 0.15).max(0.0) };
                let worth = rounds_left > 0 || mixed < fair * 0.6 || mixed >= fair;
                if worth && self.uniform() < p {
                    if let Some(x) = util::raise_to(legal, to(size.0, size.1)) {
                        return x;
                    }
                }
            }
            return util::passive(legal);
        }
        let owed = legal.call.unwrap_or(0) as f64;
        let price = owed / (view.pot as f64 + owed).max(1.0);
        let raise_line = value_line + (0.08 * raises + 0.05) * scale;
        if eff > raise_line && self.raises < 4 {
            if let Some(x) = util::raise_to(legal, to(size.0 + 1, size.1 + 1)) {
                return x;
            }
        }
        let need = price + knobs.margin * f64::from(rounds_left) * scale;
        if eff >= need {
            util::passive(legal)
        } else {
            util::check_or_fold(legal)
        }
    }
}

/// How much more respect a stud bet deserves than one bet, from fifth street on: 1 + 2 (x − 0.6)
/// for a bet of x pots, from 1 at 0.6 of the pot to at most 3 (from 1.6 pots), when it is more
/// than two big bets (a smaller one is near the minimum: its size was no choice); else 1. Early
/// streets' pots are antes and a bring-in, so a minimum bet there is already more than the pot.
/// Why: a sound player's bet grows with its hand, and the equity read of a bettor (its count of
/// bets) does not see the size. `x-big` (`equity`'s decisions with every bet and raise at 2.5
/// pots) beat `adaptive` in stud8-nl by 44.7 [−21.6, 111.0] mbb/hand when an overbet counted as
/// one bet (40,000 hands, seed 1), its value bets called as if they cost a pot; respecting bets
/// of 1.5 pots and more mended that, but a bot betting a pot for value still won (`x-big` in
/// stud8-pl, one pot at most there: 18.7 [−33.8, 71.2]; bots/README "adaptive" has the
/// figures of this rule). `adaptive`'s read of bluffers scales the respect down again against
/// bots whose big bets are bluffs.
fn overbet(
    legal: &pitboss_protocol::LegalActions,
    view: &pitboss_protocol::SeatView,
    big_bet: u64,
) -> f64 {
    let owed = legal.call.unwrap_or(0);
    let before = (view.pot.saturating_sub(owed) as f64).max(1.0);
    let x = owed as f64 / before;
    if view.round < 2 || owed <= 2 * big_bet {
        return 1.0;
    }
    (1.0 + 2.0 * (x - 0.6)).clamp(1.0, 3.0)
}

/// The stud range of a heads-up opponent that bet or raised `aggr` times this hand: holdings with
/// a pair, three low cards (eight or lower, ace low) or three of a suit keep their weight, others
/// count for less the more it bet. Random holdings otherwise, and multiway unless the bettor's
/// bets are known to hold up (`adaptive`'s read of showdowns): there the bettor is often a maniac
/// feeding the pot, and narrowing every raiser's range made the bot fold far too much at full
/// tables (measured).
fn stud_range(aggr: u8, cards: CardSet) -> f64 {
    if aggr == 0 {
        return 1.0;
    }
    let paired = cards.rank_mask().count_ones() < cards.len();
    let low = (cards.rank_mask() & 0x7f | cards.rank_mask() >> 12 & 1).count_ones() >= 3;
    let b = cards.bits();
    let suited = (0..4).any(|s| (b >> (16 * s) & 0x1fff).count_ones() >= 3);
    if paired || low || suited {
        1.0
    } else {
        0.6_f64.powi(i32::from(aggr.min(2)))
    }
}

/// The triple-draw model of an opponent that bet or raised `aggr` times this hand: it is taken to
/// hold one more good card per bet (before the first draw, as if it had drawn three, two, one).
/// One that only called a bet before the first draw is taken to hold two good cards then (as if
/// it had drawn three) rather than five random ones: players who call bets with nothing are rare.
fn draw_range(aggr: u8, called_early: bool, drew: Option<u8>) -> Option<u8> {
    match (aggr, drew) {
        (0, None) if called_early => Some(3),
        (0, d) => d,
        (a, None) => Some(4u8.saturating_sub(a).max(1)),
        (a, Some(d)) => Some(d.saturating_sub(a)),
    }
}

#[cfg(test)]
mod tests {
    use super::overbet;
    use pitboss_protocol::{LegalActions, SeatView};

    /// The respect factor of a bet of `owed` chips, the pot holding `pot` with it, in `round`,
    /// big bet 400 (stud8's).
    fn factor(round: u8, pot: u64, owed: u64) -> f64 {
        let legal = LegalActions {
            call: Some(owed),
            ..LegalActions::default()
        };
        let view = SeatView {
            round,
            pot,
            ..SeatView::default()
        };
        overbet(&legal, &view, 400)
    }

    #[test]
    fn only_a_chosen_big_bet_late_counts_for_more() {
        // A pot-sized bet of 2000 into 2000 from fifth street on: 1 + 2 × 0.4.
        assert!((factor(2, 4000, 2000) - 1.8).abs() < 1e-9);
        // 0.6 of the pot or less: one bet; 1.6 pots or more: three.
        assert_eq!(factor(3, 3200, 1200), 1.0);
        assert_eq!(factor(4, 10_400, 6400), 3.0);
        assert_eq!(factor(4, 14_000, 10_000), 3.0);
        // The same pot-sized bet on third or fourth street, or a bet of two big bets (the
        // minimum or near it) into a small pot, is one bet.
        assert_eq!(factor(1, 4000, 2000), 1.0);
        assert_eq!(factor(2, 1200, 800), 1.0);
        assert!(factor(2, 1202, 801) > 2.0);
    }
}
