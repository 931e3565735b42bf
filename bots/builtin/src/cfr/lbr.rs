//! `lbr`: a local best response (Lisý and Bowling, "Equilibrium Approximation Quality of Current
//! No-Limit Poker Bots", 2017) to `cfr-eq`, the solved triple-draw strategy without its opponent
//! model. Whatever it wins against `cfr-eq` is a lower bound on how exploitable that strategy is,
//! a bound that needs no guess at its weaknesses (the exploiter family's fixed styles do).
//!
//! A local best response needs what no fixed style has: the probabilities with which the bot it
//! plays would act holding *every* hand it could hold. `cfr-eq` can report them (its strategy file
//! is the policy), so `lbr` keeps the opponent's range as a weighted sample of hands (a particle
//! filter: each a deal of the opponent's cards consistent with what `lbr` has seen, its weight
//! the probability that `cfr-eq` holding it would have acted as it did, its draws by the standard
//! rule that `cfr-eq` draws by, and the count it drew checked against the count seen). At each of
//! its own decisions it values every action one step ahead, as the paper does: folding loses what
//! it has put in; checking or calling, then no more betting, wins its equity against the range
//! (both players drawing by the standard rule to the showdown); a bet or raise wins the pot when
//! the range folds to it (each hand with `cfr-eq`'s probability of folding there) and its equity
//! against the hands that go on otherwise. It takes the best of them. It draws by the standard
//! rule itself.
//!
//! In fixed-limit stud hi/lo it answers the stud strategy the same way ([`super::lbr_stud`]).
//! Everywhere `cfr-eq` does not play from the strategy (full tables, other stacks) `lbr` plays as
//! `adaptive`: it has no policy to answer there; nor, yet, in pot- and no-limit stud, where the
//! stud range would need the big-bet tree's sizes.

use std::sync::atomic::{AtomicU64, Ordering};

use pitboss_cards::eval::deuce_to_seven;
use pitboss_cards::{Card, CardSet};
use pitboss_cfr::td::{self, Rng};
use pitboss_cfr::tree::{Next, Node, ALL_IN, CALL, FOLD, HALF};
use pitboss_equity::draw;
use pitboss_protocol::{ActRequest, Action, Bot, Chips, Event, HandEnd, HandStart, MatchStart};

use super::lbr_stud::StudWalk;
use super::reader::{self, Reader, Step};
use super::{share, solved, solved_game, Game};
use crate::exploit::standard_draw;
use crate::util;
use crate::AdaptiveBot;

/// Hands in the sampled range. The values below are averages over it, so their noise falls as
/// its square root; 1,000 keeps a decision near a millisecond.
pub(super) const PARTICLES: usize = 1000;

/// Hands `lbr` played against the strategy, and those in which the range lost every hand (the
/// opponent took an action its strategy gives no hand of the sample; the range then starts again
/// from the hands it had, evenly weighted).
static PLAYED: AtomicU64 = AtomicU64::new(0);
static LOST: AtomicU64 = AtomicU64::new(0);

/// One hand the opponent may hold, with everything it held before (cards that cannot be dealt
/// again) and the cards still owed it by its last draw (dealt only when next needed, so that they
/// avoid the cards `lbr` was dealt meanwhile).
#[derive(Clone, Copy, Debug)]
struct Particle {
    hand: CardSet,
    seen: CardSet,
    owed: u8,
    w: f64,
}

/// The opponent's range as a weighted sample.
#[derive(Clone, Debug)]
pub(crate) struct Range {
    p: Vec<Particle>,
}

/// A card not in `dead`, uniformly.
#[inline]
pub(super) fn deal(rng: &mut Rng, dead: CardSet) -> Card {
    loop {
        let c = Card::from_index(rng.below(52) as u8);
        if !dead.contains(c) {
            return c;
        }
    }
}

/// Resamples a weighted sample `p` (weights read by `w`, set by `set`) when a few members carry
/// most of the weight (systematic resampling: the deals that follow set the copies apart again);
/// starts again from the members it has, evenly weighted, when none is left (counted in [`LOST`]).
/// Shared by the triple-draw and stud ranges.
pub(super) fn settle<P: Copy>(p: &mut Vec<P>, w: impl Fn(&P) -> f64, set: impl Fn(&mut P, f64)) {
    let (sum, sq) = p
        .iter()
        .fold((0.0, 0.0), |(s, q), x| (s + w(x), q + w(x) * w(x)));
    if sum <= 0.0 {
        LOST.fetch_add(1, Ordering::Relaxed);
        for q in p.iter_mut() {
            set(q, 1.0);
        }
        return;
    }
    if sum * sum >= sq * (PARTICLES as f64 / 4.0) {
        return;
    }
    // Deterministic offsets: the range's randomness is in the deals, so that a decision is
    // reproducible from the bot's seed alone.
    let step = sum / PARTICLES as f64;
    let mut out = Vec::with_capacity(PARTICLES);
    let mut acc = 0.0;
    let mut j = 0;
    for k in 0..PARTICLES {
        let target = (k as f64 + 0.5) * step;
        while j + 1 < p.len() && acc + w(&p[j]) < target {
            acc += w(&p[j]);
            j += 1;
        }
        let mut q = p[j];
        set(&mut q, 1.0);
        out.push(q);
    }
    *p = out;
}

/// The probabilities with which `cfr` acts from strategy row `p` (255ths) where `legal` holds:
/// what [`pitboss_cfr::mccfr::pick`] does with a uniform number, action by action (the last legal
/// action takes what the others leave). A row the training never reached is played passively.
pub(crate) fn policy(p: Option<&[u8]>, legal: &[bool]) -> [f64; 5] {
    let mut out = [0.0; 5];
    let Some(p) = p else {
        out[CALL] = 1.0;
        return out;
    };
    let last = (0..p.len()).rev().find(|&a| legal[a]).unwrap_or(CALL);
    let mut acc = 0.0f64;
    for a in 0..p.len() {
        if !legal[a] {
            continue;
        }
        if a == last {
            out[a] = (1.0 - acc).max(0.0);
        } else {
            let x = (f64::from(p[a]) / 255.0).min((1.0 - acc).max(0.0));
            out[a] = x;
            acc += x;
        }
    }
    out
}

/// The class of `hand` in betting round `round` as the strategy reads it.
#[inline]
fn class(hand: CardSet, round: u8) -> u8 {
    if round < 3 {
        td::draw_class(hand, 3 - round).0 as u8
    } else {
        td::final_class(hand) as u8
    }
}

pub(super) fn legal_at(node: &Node, width: usize) -> [bool; 5] {
    let mut l = [false; 5];
    for (a, x) in l.iter_mut().enumerate().take(width) {
        *x = node.next[a] != Next::Illegal;
    }
    l
}

impl Range {
    /// Every hand of five the opponent may hold, none dealt yet.
    pub(crate) fn new() -> Range {
        Range {
            p: vec![
                Particle {
                    hand: CardSet::EMPTY,
                    seen: CardSet::EMPTY,
                    owed: 5,
                    w: 1.0,
                };
                PARTICLES
            ],
        }
    }

    /// Deals every hand the cards it is owed, avoiding `mine` (every card `lbr` has held).
    pub(crate) fn fill(&mut self, mine: CardSet, rng: &mut Rng) {
        for q in &mut self.p {
            while q.owed > 0 {
                let c = deal(rng, mine.union(q.seen));
                q.hand.insert(c);
                q.seen.insert(c);
                q.owed -= 1;
            }
        }
    }

    /// `lbr` was dealt `c`: no hand that held it is possible.
    pub(crate) fn exclude(&mut self, c: Card) {
        for q in &mut self.p {
            if q.seen.contains(c) {
                q.w = 0.0;
            }
        }
    }

    /// The opponent took tree action `a` at `node` (index `n`) after `lbr` drew `lbr_drew` and
    /// the opponent `opp_drew` (what its strategy sees of the draws).
    pub(crate) fn acted(
        &mut self,
        s: &super::Solved,
        n: u32,
        a: usize,
        (lbr_drew, opp_drew): (u8, u8),
        mine: CardSet,
        rng: &mut Rng,
    ) {
        self.fill(mine, rng);
        let node = s.tree.nodes[n as usize];
        let width = s.tree.betting.actions();
        let legal = legal_at(&node, width);
        for q in &mut self.p {
            if q.w > 0.0 {
                let i = s
                    .strategy
                    .infoset(n, class(q.hand, node.round), lbr_drew, opp_drew);
                q.w *= policy(s.strategy.at(i), &legal[..width])[a];
            }
        }
        self.settle();
    }

    /// The opponent drew `count` with `left` draws to come counting this one: hands the standard
    /// rule would have drawn another number from are impossible; the others keep what the rule
    /// keeps and are owed the rest.
    pub(crate) fn drew(&mut self, count: u8, left: u8, mine: CardSet, rng: &mut Rng) {
        self.fill(mine, rng);
        for q in &mut self.p {
            if q.w == 0.0 {
                continue;
            }
            let keep = draw::policy(q.hand, left);
            if 5 - keep.len() as u8 != count {
                q.w = 0.0;
            } else {
                q.hand = keep;
                q.owed = count;
            }
        }
        self.settle();
    }

    /// Resamples when a few hands carry most of the weight (systematic resampling: the draws
    /// that follow set the copies apart again); starts again from the hands it has, evenly
    /// weighted, when none is left.
    fn settle(&mut self) {
        settle(&mut self.p, |q| q.w, |q, w| q.w = w);
    }

    /// The weighted hands, for tests and the decision.
    #[cfg(test)]
    pub(crate) fn hands(&self) -> impl Iterator<Item = (CardSet, f64)> + '_ {
        self.p.iter().filter(|q| q.w > 0.0).map(|q| (q.hand, q.w))
    }
}

/// The share of the showdown `a` wins against `b` (1, ½ or 0) after both draw `draws` times by
/// the standard rule from the cards not in `dead`.
fn play_out(mut a: CardSet, mut b: CardSet, mut dead: CardSet, draws: u8, rng: &mut Rng) -> f64 {
    for k in 0..draws {
        let left = draws - k;
        for h in [&mut a, &mut b] {
            let mut keep = draw::policy(*h, left);
            while keep.len() < 5 {
                let c = deal(rng, dead);
                dead.insert(c);
                keep.insert(c);
            }
            *h = keep;
        }
    }
    match deuce_to_seven(a, false).cmp(&deuce_to_seven(b, false)) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Less => 0.0,
        std::cmp::Ordering::Equal => 0.5,
    }
}

/// The hand being played against the strategy.
#[derive(Clone, Debug)]
struct Walk {
    /// The betting read by tree position, as `cfr` reads it.
    r: Reader,
    /// The node reached; `None` once the hand left the tree.
    node: Option<u32>,
    /// `lbr`'s last draw count (what the opponent's strategy reads), the opponent's draws so
    /// far and its last draw count (what `lbr` reads where it plays the strategy).
    lbr_drew: u8,
    opp_draws: u8,
    opp_last: u8,
    /// Every card `lbr` has held this hand.
    mine: CardSet,
    range: Range,
}

/// `lbr` is a local best response (Lisý and Bowling, "Equilibrium Approximation Quality of Current
/// No-Limit Poker Bots", 2017) to `cfr-eq`: not a yardstick but an instrument. What it wins against
/// `cfr-eq` is a lower bound on how exploitable the strategy is, found without a guess at its
/// weaknesses (the exploiter family's fixed styles need one). It needs what only a bot that can
/// report its action probabilities gives: how the strategy would act holding *every* hand it could
/// hold. `lbr` keeps `cfr-eq`'s range as 1,000 sampled hands, each weighted by the probability that
/// the strategy holding it would have taken the actions seen (a particle filter; a hand whose
/// standard draw is not the count seen is dropped, the cards it draws are dealt from those `lbr`
/// has not seen, and the sample is drawn again when a few hands carry most of the weight). At each
/// of its own betting decisions it values every action one step ahead, as the paper does: a fold
/// loses what it has put in; a check or call wins its equity against the range with no more betting
/// (both sides drawing by the standard rule to the showdown); a bet or raise wins the pot from the
/// hands the strategy folds there, and its equity against the rest for the raised stake. It takes
/// the best. It draws by the standard rule. `lbr-R` (digits R from 0 to 3: `lbr-3`, `lbr-01`)
/// answers only in those betting rounds (0 before the first draw, 3 after the last) and plays the
/// strategy itself in the others: what it wins is what the strategy loses in those rounds. In
/// heads-up fixed-limit stud hi/lo it answers the stud strategy alike, its range the opponent's
/// hidden cards (the rounds there are the streets, 0 third street to 4 seventh). Away from the
/// solved games it plays as `adaptive`. About 3,000 hands/s on two threads.
pub struct LbrBot {
    fallback: AdaptiveBot,
    /// The solved game being played, and its big blind.
    game: Option<(Game, Chips)>,
    rng: Rng,
    walk: Option<Walk>,
    /// The hand being played in stud.
    stud: Option<StudWalk>,
    solved: bool,
    /// The betting rounds it answers in (bit `r`: round `r`); elsewhere it plays the strategy.
    rounds: u8,
}

impl LbrBot {
    /// The local best response in every round.
    pub fn new(seed: u64) -> LbrBot {
        LbrBot::in_rounds(seed, 0b1_1111)
    }

    /// The local best response only in the betting rounds of `rounds` (bit `r`: round `r`, 0
    /// before the first draw, 3 after the last; in stud 0 third street, 4 seventh), the
    /// strategy's own play elsewhere: what it wins then is what the strategy loses in those
    /// rounds alone.
    pub fn in_rounds(seed: u64, rounds: u8) -> LbrBot {
        LbrBot {
            rounds,
            fallback: AdaptiveBot::new(seed),
            game: None,
            rng: Rng::new(seed ^ 0x6c62_725f_626f_7421),
            walk: None,
            stud: None,
            solved: false,
        }
    }

    /// Hands every `lbr` of this process played against the strategy, and in how many the
    /// range lost every hand it held.
    pub fn tally() -> (u64, u64) {
        (PLAYED.load(Ordering::Relaxed), LOST.load(Ordering::Relaxed))
    }

    fn follow(&mut self, events: &[Event], game: Game) {
        let s = solved(game);
        let Some(w) = self.walk.as_mut() else {
            return;
        };
        let rng = &mut self.rng;
        for e in events {
            match *e {
                Event::Deal {
                    seat,
                    card: Some(c),
                    ..
                } if seat == w.r.seat => {
                    w.mine.insert(c);
                    w.range.exclude(c);
                    continue;
                }
                Event::Discard { seat, count, .. } => {
                    if seat == w.r.seat {
                        w.lbr_drew = count;
                    } else {
                        let left = 3u8.saturating_sub(w.opp_draws);
                        w.range.drew(count, left, w.mine, rng);
                        w.opp_draws += 1;
                        w.opp_last = count;
                    }
                    continue;
                }
                _ => {}
            }
            let node = w.node.map(|n| &s.tree.nodes[n as usize]);
            let Step::Act { p, a, .. } = w.r.read(e, game, node) else {
                continue;
            };
            let Some(n) = w.node else {
                continue;
            };
            let node = s.tree.nodes[n as usize];
            if usize::from(node.player) != p {
                w.node = None;
                continue;
            }
            if !w.r.mine(p) && node.next[a] != Next::Illegal {
                w.range
                    .acted(s, n, a, (w.lbr_drew, w.opp_last), w.mine, rng);
            }
            w.node = match node.next[a] {
                Next::Node(m) => Some(m),
                _ => None,
            };
        }
    }

    /// The local best response at the node reached, or `None` off the tree.
    fn decide(&mut self, req: &ActRequest, game: Game) -> Option<Action> {
        let s = solved(game);
        let w = self.walk.as_mut()?;
        let n = w.node?;
        let node = s.tree.nodes[n as usize];
        if node.player != w.r.me || req.view.cards.len() != 5 {
            return None;
        }
        let hand: CardSet = req.view.cards.iter().collect();
        if self.rounds & (1 << node.round) == 0 {
            // Not a round it answers in: the strategy's own play, as `cfr-eq` would play it.
            let width = s.tree.betting.actions();
            let legal = legal_at(&node, width);
            let i = s
                .strategy
                .infoset(n, class(hand, node.round), w.opp_last, w.lbr_drew);
            let p = policy(s.strategy.at(i), &legal[..width]);
            let u = f64::from(self.rng.unit());
            let mut acc = 0.0;
            let mut a = CALL;
            for (b, &x) in p.iter().enumerate().take(width) {
                if legal[b] {
                    acc += x;
                    a = b;
                    if u < acc {
                        break;
                    }
                }
            }
            return play(req, game, &node, a, w);
        }
        w.range.fill(w.mine, &mut self.rng);
        let width = s.tree.betting.actions();
        let legal = legal_at(&node, width);
        let me = usize::from(w.r.me);
        let (mine_in, level) = (node.contrib[me], node.contrib[1 - me]);
        let draws = 3u8.saturating_sub(node.round);
        // Per hand of the range: its weight, `lbr`'s showdown share against it.
        let mut total = 0.0;
        let mut eq = 0.0;
        let mut ev = [0.0f64; 5];
        let raises: Vec<(usize, u32, Node)> = (HALF..width)
            .filter_map(|a| match node.next[a] {
                Next::Node(m) => Some((a, m, s.tree.nodes[m as usize])),
                _ => None,
            })
            .collect();
        for q in &w.range.p {
            if q.w <= 0.0 {
                continue;
            }
            let share = play_out(hand, q.hand, w.mine.union(q.seen), draws, &mut self.rng);
            total += q.w;
            eq += q.w * share;
            for &(a, m, ref next) in &raises {
                // The opponent's answer at the raise's node: fold, else it goes to a showdown
                // for the raise's stake (a raise back is valued as a call, as in the paper).
                let l = legal_at(next, width);
                let i = s
                    .strategy
                    .infoset(m, class(q.hand, next.round), w.lbr_drew, w.opp_last);
                let fold = policy(s.strategy.at(i), &l[..width])[FOLD];
                let stake = f64::from(node.raise_to[a]);
                ev[a] +=
                    q.w * (fold * f64::from(level) + (1.0 - fold) * stake * (2.0 * share - 1.0));
            }
        }
        if total <= 0.0 {
            return None;
        }
        let eq = eq / total;
        ev[FOLD] = -f64::from(mine_in);
        ev[CALL] = f64::from(level) * (2.0 * eq - 1.0);
        for &(a, _, _) in &raises {
            ev[a] /= total;
        }
        let mut best = CALL;
        for a in [FOLD, HALF, 3, ALL_IN] {
            if a < width && legal[a] && ev[a] > ev[best] + 1e-9 {
                best = a;
            }
        }
        play(req, game, &node, best, w)
    }
}

/// The real action for tree action `a` at `node`, remembered as what `lbr` chose.
fn play(req: &ActRequest, game: Game, node: &Node, a: usize, w: &mut Walk) -> Option<Action> {
    let action = match a {
        FOLD if req.legal.fold => Action::Fold,
        FOLD | CALL => util::passive(&req.legal),
        _ if game == Game::Fl => util::min_raise(&req.legal)?,
        ALL_IN => util::raise_to(&req.legal, Chips::MAX)?,
        a => {
            // The tree's share of the real pot, as `cfr` sizes its own raises, so that the
            // opponent reads it as the tree's raise it is.
            let real_level = util::level(&req.view);
            let pot_after_call = req.view.pot + util::owed(&req.view);
            let to = real_level + (share(node, a) * pot_after_call as f64).round() as Chips;
            util::raise_to(&req.legal, to)?
        }
    };
    w.r.chose = Some(a);
    Some(action)
}

impl Bot for LbrBot {
    fn match_start(&mut self, m: &MatchStart) {
        // Pot- and no-limit stud have no local best response yet: `adaptive` plays them.
        self.game = solved_game(&m.game)
            .filter(|g| !matches!(g, Game::StudPl | Game::StudNl))
            .map(|g| (g, super::unit(g, &m.game)));
        self.fallback.match_start(m);
    }

    fn hand_start(&mut self, h: &HandStart) {
        // The hands `cfr` plays from the strategy.
        self.solved = reader::on_tree(h, self.game);
        let stud = matches!(self.game, Some((Game::StudFl, _)));
        self.stud = (self.solved && stud).then(|| StudWalk::new(h.seat));
        self.walk = (self.solved && !stud).then(|| Walk {
            r: Reader::new(h.seat, h.button),
            node: Some(0),
            lbr_drew: 0,
            opp_draws: 0,
            opp_last: 0,
            mine: CardSet::EMPTY,
            range: Range::new(),
        });
        if self.solved {
            PLAYED.fetch_add(1, Ordering::Relaxed);
        } else {
            self.fallback.hand_start(h);
        }
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        let Some((game, _)) = self.game.filter(|_| self.solved) else {
            return self.fallback.act(req);
        };
        if let Some(w) = self.stud.as_mut() {
            w.follow(&req.events, &mut self.rng);
            return w
                .decide(req, self.rounds, &mut self.rng)
                .unwrap_or_else(|| util::passive(&req.legal));
        }
        self.follow(&req.events, game);
        if let Some(w) = self.walk.as_mut() {
            for &c in &req.view.cards {
                if w.mine.insert(c) {
                    w.range.exclude(c);
                }
            }
        }
        if let Some(max) = req.legal.discard {
            return standard_draw(req, max);
        }
        self.decide(req, game)
            .unwrap_or_else(|| util::passive(&req.legal))
    }

    fn hand_end(&mut self, h: &HandEnd) {
        if !self.solved {
            self.fallback.hand_end(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitboss_cards::parse_cards;

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().iter().collect()
    }

    /// Every five-card hand of the cards outside `mine`, each with `f` of it.
    fn exact<F: FnMut(CardSet) -> (f64, f64)>(mine: CardSet, mut f: F) -> (f64, f64) {
        let free: Vec<Card> = CardSet::FULL.difference(mine).iter().collect();
        let n = free.len();
        let (mut w, mut x) = (0.0, 0.0);
        for a in 0..n {
            for b in a + 1..n {
                for c in b + 1..n {
                    for d in c + 1..n {
                        for e in d + 1..n {
                            let h: CardSet = [free[a], free[b], free[c], free[d], free[e]]
                                .into_iter()
                                .collect();
                            let (wi, xi) = f(h);
                            w += wi;
                            x += wi * xi;
                        }
                    }
                }
            }
        }
        (w, x / w)
    }

    fn sampled(r: &Range, f: impl Fn(CardSet) -> f64) -> f64 {
        let (w, x) = r
            .hands()
            .fold((0.0, 0.0), |(w, x), (h, wi)| (w + wi, x + wi * f(h)));
        x / w
    }

    #[test]
    fn the_policy_is_what_pick_plays() {
        let legal = [false, true, true];
        let p = [200u8, 100, 120];
        let probs = policy(Some(&p), &legal);
        // Fold is not allowed: pick plays call below 100/255, else the raise.
        assert!((probs[CALL] - 100.0 / 255.0).abs() < 1e-12);
        assert!((probs[HALF] - 155.0 / 255.0).abs() < 1e-12);
        assert_eq!(probs[FOLD], 0.0);
        let mut counts = [0u32; 3];
        let mut rng = Rng::new(3);
        let p32: Vec<f32> = p.iter().map(|&x| f32::from(x) / 255.0).collect();
        for _ in 0..200_000 {
            counts[pitboss_cfr::mccfr::pick(&p32, &legal, rng.unit())] += 1;
        }
        for a in 0..3 {
            let f = f64::from(counts[a]) / 200_000.0;
            assert!(
                (f - probs[a]).abs() < 0.005,
                "{a}: {f} against {}",
                probs[a]
            );
        }
        assert_eq!(policy(None, &legal)[CALL], 1.0);
    }

    /// The range after the button raises at the first decision, then draws one, is the
    /// posterior of Bayes' rule computed over every hand the button could hold.
    #[test]
    fn the_range_is_the_posterior_of_the_strategy() {
        let s = solved(Game::Fl);
        let mine = set("Kc Qd Jh 9s 8c");
        let node = s.tree.nodes[0];
        let l = legal_at(&node, 3);
        let raise = |h: CardSet| {
            policy(
                s.strategy.at(s.strategy.infoset(0, class(h, 0), 0, 0)),
                &l[..3],
            )[HALF]
        };
        let top = |h: CardSet| f64::from(15 - h.rank_mask().leading_zeros() as u8);
        // The class of the hands that raise, then the top card kept by those drawing one.
        let (_, class_mean) = exact(mine, |h| (raise(h), f64::from(class(h, 0))));
        let (_, top_kept) = exact(mine, |h| {
            let keep = draw::policy(h, 3);
            (raise(h) * f64::from(u8::from(keep.len() == 4)), top(keep))
        });
        // Ten ranges pooled: the sampled means' standard errors are about a quarter of the
        // tolerances.
        let mut rng = Rng::new(11);
        let (mut got_class, mut got_top) = (0.0, 0.0);
        for _ in 0..10 {
            let mut r = Range::new();
            for c in mine.iter() {
                r.exclude(c);
            }
            r.acted(s, 0, HALF, (0, 0), mine, &mut rng);
            got_class += sampled(&r, |h| f64::from(class(h, 0))) / 10.0;
            r.drew(1, 3, mine, &mut rng);
            got_top += sampled(&r, top) / 10.0;
            // Every hand left drew one and was dealt a fifth card apart from `lbr`'s.
            r.fill(mine, &mut rng);
            assert!(r
                .hands()
                .all(|(h, _)| h.len() == 5 && h.intersection(mine).is_empty()));
        }
        assert!(
            (got_class - class_mean).abs() < 0.3,
            "mean class of the raising range: sampled {got_class}, exact {class_mean}"
        );
        assert!(
            (got_top - top_kept).abs() < 0.1,
            "top card kept by those drawing one: sampled {got_top}, exact {top_kept}"
        );
    }
}
