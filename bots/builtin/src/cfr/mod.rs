//! `cfr`: heads-up triple draw and stud hi/lo from near-equilibrium strategies (crate
//! `pitboss-cfr`: Monte Carlo CFR on an abstraction of the game), `adaptive` everywhere else.
//!
//! In stud there is nothing to draw, and who acts first changes from street to street with the up
//! cards: the reader ([`reader`]) takes the street's first action (or this bot being asked first)
//! as the tree's position 0, and the bot reads its class from its cards and the opponent's up
//! cards ([`pitboss_cfr::stud`]).
//!
//! The strategy bets; the standard drawing rule of `pitboss-equity` draws (the abstraction was
//! solved with both players drawing by it). The bot follows the hand down the solved betting
//! tree from the events it receives, reading a real bet in pot and no limit as the tree's bet
//! nearest to it by its share of the pot (its own bets are the tree's share of the real pot). If
//! the hand ever leaves the tree (a sequence the abstraction does not hold, or an all-in in the
//! tree that was not one at the table) it plays the rest of the hand passively.
//!
//! On top of the strategy, a model of the opponent ([`model`]) bends it against the leaks the
//! opponent shows, risking only what the bot has won against it.

mod lbr;
mod lbr_stud;
mod model;
mod reader;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use pitboss_cards::CardSet;
use pitboss_cfr::strategy::Strategy;
use pitboss_cfr::stud;
use pitboss_cfr::td::{self, Rng};
use pitboss_cfr::tree::{
    self, Betting, Next, Node, Tree, ALL_IN, CALL, FOLD, HALF, POT, TD_FL, TD_NL, TD_PL,
};
use pitboss_protocol::{
    ActRequest, Action, Bot, Chips, Event, GameInfo, HandEnd, HandStart, MatchStart, SeatNo,
};

use crate::exploit::standard_draw;
use crate::util;
use crate::AdaptiveBot;
pub use lbr::LbrBot;
use model::Model;
use reader::{Reader, Step};

/// The strategies `cargo run --release -p pitboss-cfr --bin pitboss-cfr-train` wrote
/// (bots/README.md gives the commands and their seeds), zstd-compressed.
static STRATEGY_27TD_FL: &[u8] = include_bytes!("../../strategy/27td-fl.cfr.zst");
static STRATEGY_27TD_PL: &[u8] = include_bytes!("../../strategy/27td-pl.cfr.zst");
static STRATEGY_27TD_NL: &[u8] = include_bytes!("../../strategy/27td-nl.cfr.zst");
static STRATEGY_STUD8_FL: &[u8] = include_bytes!("../../strategy/stud8-fl.cfr.zst");
static STRATEGY_STUD8_PL: &[u8] = include_bytes!("../../strategy/stud8-pl.cfr.zst");
static STRATEGY_STUD8_NL: &[u8] = include_bytes!("../../strategy/stud8-nl.cfr.zst");

/// A solved game: its tree and strategy.
struct Solved {
    tree: Tree,
    strategy: Strategy,
}

impl Solved {
    fn read(betting: Betting, file: &[u8]) -> Solved {
        let tree = Tree::new(betting);
        let raw = pitboss_cfr::strategy::decompress(file).expect("the embedded strategy is zstd");
        let strategy = Strategy::from_bytes(&raw, tree.nodes.len(), betting.actions())
            .expect("the embedded strategy fits this build's tree and abstraction");
        Solved { tree, strategy }
    }
}

/// The solved games, each read once per process when first played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Game {
    Fl,
    Pl,
    Nl,
    /// Fixed-limit stud hi/lo.
    StudFl,
    /// Pot- and no-limit stud hi/lo.
    StudPl,
    StudNl,
}

impl Game {
    /// Stud: positions per street, classes from [`pitboss_cfr::stud`].
    fn stud(self) -> bool {
        matches!(self, Game::StudFl | Game::StudPl | Game::StudNl)
    }

    /// Fixed limit: one raise size, the tree's.
    fn fixed(self) -> bool {
        matches!(self, Game::Fl | Game::StudFl)
    }

    /// The model's round of tree round `round`: stud's five streets read as triple draw's four,
    /// the last the last (third and fourth street together).
    fn model_round(self, round: u8) -> usize {
        usize::from(if self.stud() {
            round.saturating_sub(1)
        } else {
            round
        })
    }
}

fn solved(g: Game) -> &'static Solved {
    static FL: OnceLock<Solved> = OnceLock::new();
    static PL: OnceLock<Solved> = OnceLock::new();
    static NL: OnceLock<Solved> = OnceLock::new();
    static STUD_FL: OnceLock<Solved> = OnceLock::new();
    static STUD_PL: OnceLock<Solved> = OnceLock::new();
    static STUD_NL: OnceLock<Solved> = OnceLock::new();
    match g {
        Game::Fl => FL.get_or_init(|| Solved::read(TD_FL, STRATEGY_27TD_FL)),
        Game::Pl => PL.get_or_init(|| Solved::read(TD_PL, STRATEGY_27TD_PL)),
        Game::Nl => NL.get_or_init(|| Solved::read(TD_NL, STRATEGY_27TD_NL)),
        Game::StudFl => STUD_FL.get_or_init(|| Solved::read(tree::STUD_FL, STRATEGY_STUD8_FL)),
        Game::StudPl => STUD_PL.get_or_init(|| Solved::read(tree::STUD_PL, STRATEGY_STUD8_PL)),
        Game::StudNl => STUD_NL.get_or_init(|| Solved::read(tree::STUD_NL, STRATEGY_STUD8_NL)),
    }
}

/// Hands played from the strategy, and those of them that left the tree, by every `cfr` of the
/// process ([`CfrBot::tally`]).
static PLAYED: AtomicU64 = AtomicU64::new(0);
static LEFT: AtomicU64 = AtomicU64::new(0);
static OFF: AtomicU64 = AtomicU64::new(0);

/// Which solved game `g` is, up to the size of the chips: triple draw, no ante, blinds of half
/// a big blind and one, and in fixed limit bets of one and two big blinds, cap 4; or stud hi/lo
/// with the presets' proportions (ante a fifth of the small bet, bring-in a quarter; in fixed
/// limit big bet twice the small, cap 4).
fn solved_game(g: &GameInfo) -> Option<Game> {
    if g.variant == "stud-hi-lo" {
        let stakes = g.small_bet > 0 && g.ante * 5 == g.small_bet && g.bring_in * 4 == g.small_bet;
        return match g.structure.as_str() {
            "fixed-limit" => {
                (stakes && g.big_bet == 2 * g.small_bet && g.cap == 4 && !g.heads_up_uncapped)
                    .then_some(Game::StudFl)
            }
            "pot-limit" => stakes.then_some(Game::StudPl),
            "no-limit" => stakes.then_some(Game::StudNl),
            _ => None,
        };
    }
    let blinds = g.variant == "triple-draw"
        && g.ante == 0
        && g.big_blind > 0
        && g.small_blind * 2 == g.big_blind
        && !g.ace_five_straight;
    if !blinds {
        return None;
    }
    match g.structure.as_str() {
        "fixed-limit" => (g.small_bet == g.big_blind
            && g.big_bet == 2 * g.small_bet
            && g.cap == 4
            && !g.heads_up_uncapped)
            .then_some(Game::Fl),
        "pot-limit" => Some(Game::Pl),
        "no-limit" => Some(Game::Nl),
        _ => None,
    }
}

/// The chips the solved game's sizes are measured in: the big blind, stud's small bet.
fn unit(g: Game, info: &GameInfo) -> Chips {
    if g.stud() {
        info.small_bet
    } else {
        info.big_blind
    }
}

/// Where this hand is in the solved tree, and the real chips (pot and no limit map real bet
/// sizes to the tree's by their share of the pot).
#[derive(Clone, Copy, Debug)]
struct Walk {
    /// The betting read by tree position.
    r: Reader,
    node: u32,
    /// The opponent's last draw count, and this bot's.
    opp_drew: u8,
    own_drew: u8,
    /// The opponent's last raise, if it is the bet this bot now faces: its real size and the
    /// size of the tree's raise it was read as, each as a share of the pot after calling it.
    faced: Option<(f64, f64)>,
}

/// The tree's raise `a` at `node` as a share of the pot after calling it (the tree's pot is the
/// two positions' equal contributions at the level).
fn share(node: &Node, a: usize) -> f64 {
    let level = node.contrib[0].max(node.contrib[1]);
    f64::from(node.raise_to[a] - level) / f64::from(2 * level)
}

/// The tree's raise nearest to a real one of `inc` chips over the level with `pot_after_call`
/// in the pot after the raiser's call, by the ratio of the sizes (a raise twice as big as
/// another is as far from it as one half as big), all-in to all-in.
fn nearest_raise(node: &Node, inc: Chips, pot_after_call: Chips, all_in: bool) -> usize {
    let legal: Vec<usize> = [HALF, POT, ALL_IN]
        .into_iter()
        .filter(|&a| node.next[a] != Next::Illegal)
        .collect();
    if all_in && legal.contains(&ALL_IN) {
        return ALL_IN;
    }
    let real = (inc.max(1) as f64 / pot_after_call.max(1) as f64).ln();
    legal
        .into_iter()
        .min_by(|&a, &b| {
            let d = |a: usize| (share(node, a).ln() - real).abs();
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(CALL)
}

/// Against a bet of `real` times the pot read as the tree's bet of `tree` times the pot
/// (`real > tree`), continues less often than the strategy does against the tree's bet: a hand of
/// `strength` (0: the weakest class of its round, 1: the strongest) keeps `r^(2(1 − strength))`
/// of its probability of calling or raising, `r = (1 + tree) / (1 + real)`, and folds the rest.
///
/// Why: an equilibrium defender continues with about `1 / (1 + x)` of its range against a bet of
/// `x` pots, dropping its weakest hands first, but the solved strategy defends as against the
/// tree's smaller bet, so a bettor who sizes its value bets up is paid too often (`x-big`, which
/// bets `equity`'s raises at 2.5 pots, read as one pot, held `cfr` to −40.4 [−97.0, 16.1]
/// mbb/hand in 27td-nl, 200,000 hands; with this, +247.5 [202.9, 292.2]). `r` is the ratio of the
/// two defence frequencies; the exponent, whose mean over strengths spread evenly is a little
/// above `r` (0.60 for 2.5 pots read as one, `r` = 0.57), folds the weak hands first and leaves the strongest as they are (scaling every hand alike cost
/// 70 mbb/hand against `lowball` and 117 against `x-mid`, which both bet a range with bluffs in
/// it). `relax` in `0..=1` (the opponent model's read of a bot that raises too much, times what it
/// may risk) takes the extra folds back against overbetting bluffers.
fn defend_less(p: &mut [f32], real: f64, tree: f64, strength: f32, relax: f32) {
    let r = ((1.0 + tree) / (1.0 + real)) as f32;
    let keep = r.powf(2.0 * (1.0 - strength.clamp(0.0, 1.0)) * (1.0 - relax.clamp(0.0, 1.0)));
    let mut moved = 0.0;
    for (a, x) in p.iter_mut().enumerate() {
        if a != FOLD {
            moved += *x * (1.0 - keep);
            *x *= keep;
        }
    }
    p[FOLD] += moved;
}

/// `cfr` plays heads-up deuce-to-seven triple draw, in all three structures, from strategies
/// solved by Monte Carlo CFR (crate `pitboss-cfr`) on an abstraction of the game: the betting
/// sequences (in fixed limit every one the rules allow; in pot and no limit bets of half the pot,
/// the pot and all-in, a real bet read as the nearest of them by its share of the pot), the hand in
/// each betting round as one of 18 classes (what the standard drawing rule of `pitboss-equity`
/// does with it and how good the cards it keeps are; after the last draw, the made hand in 15
/// classes) and the last draw counts (both players' in fixed limit, the opponent's in pot and no
/// limit). It bets with the solved probabilities, sampled
/// from its seed, and draws by the standard rule, as the solver assumed; facing a real bet larger
/// than the tree's it was read as, it continues less often, folding its weakest hands first. On top of the strategy
/// it models its opponent: against one that folds too much it bets and raises more, against one
/// that calls too much it stops bluffing and bets thinner for value, against one that raises too
/// much it folds less, but only as far as what it has won against that opponent covers the
/// worst such a departure can cost (`cfr-eq` is the strategy alone). In heads-up stud
/// hi/lo it plays strategies solved the same way on the abstraction of `pitboss_cfr::stud` (its
/// high and low prospects against the opponent's board), in fixed limit every betting sequence, in
/// pot and no limit triple draw's bet sizes on stud's minimums, with the same opponent model.
/// Everywhere else (full tables, stacks other than those solved) it plays exactly like `adaptive`.
/// `best` is another name for it: the strongest built-in bot.
pub struct CfrBot {
    fallback: AdaptiveBot,
    /// The solved game being played, and its big blind.
    game: Option<(Game, Chips)>,
    rng: Rng,
    /// Whether this hand is played from the strategy (else by `fallback`, from its start).
    solved: bool,
    /// Where the hand is in the tree; `None` once it left it.
    walk: Option<Walk>,
    /// This bot's seat in the hand being played.
    seat: SeatNo,
    /// The opponent as seen in this match; `None`: the equilibrium alone (`cfr-eq`).
    model: Option<Model>,
}

impl CfrBot {
    pub fn new(seed: u64) -> CfrBot {
        CfrBot {
            fallback: AdaptiveBot::new(seed),
            game: None,
            rng: Rng::new(seed ^ 0x6366_725f_626f_7421),
            solved: false,
            walk: None,
            seat: 0,
            model: Some(Model::default()),
        }
    }

    /// `cfr-eq`: the strategy alone, with no opponent model (what the model is measured against).
    pub fn equilibrium(seed: u64) -> CfrBot {
        CfrBot {
            model: None,
            ..CfrBot::new(seed)
        }
    }

    /// How many hands every `cfr` of this process began from the strategy, and how many of them
    /// left the solved tree (played passively from there): a test's view of whether the bot
    /// follows real hands.
    pub fn tally() -> (u64, u64) {
        (PLAYED.load(Ordering::Relaxed), LEFT.load(Ordering::Relaxed))
    }

    /// Betting decisions every `cfr` of this process took off the tree: after the tree's betting
    /// closed (an all-in in the tree that was not one at the table) or the hand left it.
    pub fn off_tree() -> u64 {
        OFF.load(Ordering::Relaxed)
    }

    /// Follows the hand's betting events down the tree.
    fn follow(&mut self, events: &[Event], game: Game) {
        let Some(w) = self.walk.as_mut() else {
            return;
        };
        let tree = &solved(game).tree;
        for e in events {
            let node = tree.nodes[w.node as usize];
            if let Event::Discard { seat, count, .. } = *e {
                if seat != w.r.seat {
                    w.opp_drew = count;
                } else {
                    w.own_drew = count;
                }
                continue;
            }
            let Step::Act { p, a, faced } = w.r.read(e, game, Some(&node)) else {
                continue;
            };
            w.faced = faced;
            let next = reader::next(&node, p, a);
            if let Some(m) = self.model.as_mut().filter(|_| !w.r.mine(p)) {
                if next != Next::Illegal {
                    let round = game.model_round(node.round);
                    m.observe(round, node.next[FOLD] != Next::Illegal, a);
                }
            }
            match next {
                Next::Node(m) => w.node = m,
                // The hand is over for the tree (a fold, or betting closed by a showdown or an
                // all-in): nothing more to follow.
                Next::Fold { .. } | Next::Showdown { .. } => {
                    self.walk = None;
                    return;
                }
                Next::Illegal => {
                    self.walk = None;
                    LEFT.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// Stud: the information set of this bot's decision at `node` (its cards against the
    /// opponent's board, and the acting order seen), and its hand's strength from 0 to 1.
    fn stud_infoset(
        &self,
        req: &ActRequest,
        game: Game,
        w: &Walk,
        node: &Node,
    ) -> Option<(usize, f32)> {
        let v = &req.view;
        let me = usize::from(w.r.seat);
        let opp = v.seats.get(1 - me.min(1))?;
        let own: CardSet = v.cards.iter().chain(&v.seats.get(me)?.up).collect();
        let opp_up: CardSet = opp.up.iter().collect();
        let round = node.round;
        if own.len() != 3 + u32::from(round) || opp_up.len() != 1 + u32::from(round.min(3)) {
            return None;
        }
        let class = stud::class(own, opp_up, round);
        let i = solved(game)
            .strategy
            .stud_infoset(w.node, class, w.r.order());
        Some((i, stud::strength(class, round)))
    }

    fn bet(&mut self, req: &ActRequest, game: Game) -> Option<Action> {
        if let Some(w) = self.walk.as_mut().filter(|_| game.stud()) {
            w.r.first_to_act();
        }
        let w = self.walk?;
        let s = solved(game);
        let node = s.tree.nodes[w.node as usize];
        if node.player != w.r.me {
            return None;
        }
        let (i, class_strength) = if game.stud() {
            self.stud_infoset(req, game, &w, &node)?
        } else {
            if req.view.cards.len() != 5 {
                return None;
            }
            let hand: CardSet = req.view.cards.iter().collect();
            let class = if node.round < 3 {
                td::draw_class(hand, 3 - node.round).0
            } else {
                td::final_class(hand)
            };
            let classes = if node.round < 3 { td::BUCKETS } else { 15 };
            let i = s
                .strategy
                .infoset(w.node, class as u8, w.opp_drew, w.own_drew);
            (i, class as f32 / (classes - 1) as f32)
        };
        let p = s.strategy.at(i)?;
        let width = p.len();
        let legal: Vec<bool> = node.next[..width]
            .iter()
            .map(|x| *x != Next::Illegal)
            .collect();
        let mut pf: Vec<f32> = p.iter().map(|&x| f32::from(x) / 255.0).collect();
        let strength = class_strength;
        let round = game.model_round(node.round);
        if let Some((real, tree)) = w.faced.filter(|&(r, t)| legal[FOLD] && r > t) {
            // Against a bot that raises too much, as far as the model may bend the strategy,
            // an oversized bet is no stronger than a pot-sized one.
            let relax = self
                .model
                .as_ref()
                .map_or(0.0, |m| m.weight() * m.leaks(round).raises);
            defend_less(&mut pf, real, tree, strength, relax);
        }
        if let Some(m) = &self.model {
            m.adjust(&mut pf, &legal, legal[FOLD], strength, round);
        }
        let a = pitboss_cfr::mccfr::pick(&pf, &legal, self.rng.unit());
        let action = match a {
            FOLD if req.legal.fold => Action::Fold,
            FOLD | CALL => util::passive(&req.legal),
            _ if game.fixed() => util::min_raise(&req.legal)?,
            ALL_IN => util::raise_to(&req.legal, Chips::MAX)?,
            _ => {
                // The same share of the real pot as the tree's raise of its own.
                let share = share(&node, a);
                let real_level = util::level(&req.view);
                let pot_after_call = req.view.pot + util::owed(&req.view);
                let to = real_level + (share * pot_after_call as f64).round() as Chips;
                util::raise_to(&req.legal, to)?
            }
        };
        if let Some(w) = self.walk.as_mut() {
            w.r.chose = Some(a);
        }
        Some(action)
    }
}

impl Bot for CfrBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.game = solved_game(&m.game).map(|g| (g, unit(g, &m.game)));
        if let (Some(model), Some((g, bb))) = (self.model.as_mut(), self.game) {
            // The most a hand of exploitation can cost beyond the equilibrium: in fixed limit a
            // bet a round (1 + 1 + 2 + 2 big blinds); in pot and no limit a fifth of the stack.
            let risk = match g {
                Game::Fl => 6 * bb,
                // A small bet on third and fourth street, a big one (two) on the three after.
                Game::StudFl => 8 * bb,
                Game::Pl | Game::Nl | Game::StudPl | Game::StudNl => 20 * bb,
            };
            *model = Model::new(risk as i64);
        }
        self.fallback.match_start(m);
    }

    fn hand_start(&mut self, h: &HandStart) {
        self.solved = reader::on_tree(h, self.game);
        self.seat = h.seat;
        let stud = self.game.is_some_and(|(g, _)| g.stud());
        self.walk = self.solved.then_some(Walk {
            r: if stud {
                Reader::stud(h.seat)
            } else {
                Reader::new(h.seat, h.button)
            },
            node: 0,
            opp_drew: 0,
            own_drew: 0,
            faced: None,
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
        self.follow(&req.events, game);
        if let Some(max) = req.legal.discard {
            return standard_draw(req, max);
        }
        self.bet(req, game).unwrap_or_else(|| {
            OFF.fetch_add(1, Ordering::Relaxed);
            util::passive(&req.legal)
        })
    }

    fn hand_end(&mut self, h: &HandEnd) {
        if !self.solved {
            self.fallback.hand_end(h);
            return;
        }
        if let Some((game, _)) = self.game {
            // The opponent's last answers (a fold to this bot's bet) come with the hand's end.
            self.follow(&h.events, game);
        }
        if let (Some(m), Some(&net)) = (self.model.as_mut(), h.net.get(usize::from(self.seat))) {
            m.won(net);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Call and raise probabilities of a decision facing a bet, fold first.
    fn facing() -> Vec<f32> {
        vec![0.2, 0.5, 0.2, 0.1, 0.0]
    }

    #[test]
    fn an_oversized_bet_is_defended_less_weak_hands_first() {
        let (real, tree) = (2.5, 1.0);
        let r = (1.0 + tree as f32) / (1.0 + real as f32);
        for strength in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let mut p = facing();
            defend_less(&mut p, real, tree, strength, 0.0);
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{p:?}");
            let keep = r.powf(2.0 * (1.0 - strength));
            for a in 1..p.len() {
                assert!(
                    (p[a] - facing()[a] * keep).abs() < 1e-6,
                    "{strength}: {p:?}"
                );
            }
        }
        // The weakest keep r² of their defence, the strongest all of it; over strengths spread
        // evenly the defence kept is (1 − r²) / (2 ln(1/r)), a little above r, the ratio of the
        // two defence frequencies (0.60 against 0.57 here).
        let kept = |s: f32| {
            let mut p = facing();
            defend_less(&mut p, real, tree, s, 0.0);
            1.0 - p[FOLD]
        };
        assert!((kept(0.0) - 0.8 * r * r).abs() < 1e-6);
        assert!((kept(1.0) - 0.8).abs() < 1e-6);
        let mean = (0..=100).map(|i| kept(i as f32 / 100.0)).sum::<f32>() / 101.0;
        let even = (1.0 - r * r) / (2.0 * (1.0 / r).ln());
        assert!(
            (mean / 0.8 - even).abs() < 0.005,
            "{mean} against {}",
            0.8 * even
        );
        assert!(even > r && even < r + 0.04);
    }

    #[test]
    fn a_bot_that_raises_too_much_is_defended_as_the_tree_says() {
        let mut p = facing();
        defend_less(&mut p, 2.5, 1.0, 0.0, 1.0);
        assert_eq!(p, facing());
    }
}
