//! `cfr`: heads-up fixed-limit triple draw from a near-equilibrium strategy (crate `pitboss-cfr`:
//! Monte Carlo CFR on an abstraction of the game), `adaptive` everywhere else.
//!
//! The strategy bets; the standard drawing rule of `pitboss-equity` draws (the abstraction was
//! solved with both players drawing by it). The bot follows the hand down the solved betting
//! tree from the events it receives; if the hand ever leaves the tree (a fault's penalty the tree
//! does not hold, stacks too short for four capped rounds) it plays the rest of the hand passively.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use pitboss_cards::CardSet;
use pitboss_cfr::mccfr::infoset;
use pitboss_cfr::strategy::Strategy;
use pitboss_cfr::td::{self, Rng};
use pitboss_cfr::tree::{Next, Tree, TD_FL};
use pitboss_protocol::{
    ActRequest, Action, Bot, Event, GameInfo, HandEnd, HandStart, MatchStart, SeatNo,
};

use crate::exploit::standard_draw;
use crate::util;
use crate::AdaptiveBot;

/// The strategy `cargo run --release -p pitboss-cfr --bin pitboss-cfr-train` wrote
/// (bots/README.md gives the command and its seed).
static STRATEGY_27TD_FL: &[u8] = include_bytes!("../strategy/27td-fl.cfr");

struct Solved {
    tree: Tree,
    strategy: Strategy,
}

/// The tree and the strategy, read once per process.
fn solved() -> &'static Solved {
    static S: OnceLock<Solved> = OnceLock::new();
    S.get_or_init(|| {
        let tree = Tree::new(TD_FL);
        let strategy = Strategy::from_bytes(STRATEGY_27TD_FL, tree.nodes.len())
            .expect("the embedded strategy fits this build's tree and abstraction");
        Solved { tree, strategy }
    })
}

/// Hands played from the strategy, and those of them that left the tree, by every `cfr` of the
/// process ([`CfrBot::tally`]).
static PLAYED: AtomicU64 = AtomicU64::new(0);
static LEFT: AtomicU64 = AtomicU64::new(0);

/// Whether `g` is the game the strategy was solved for, up to the size of the chips: fixed-limit
/// triple draw, no ante, blinds of half a bet and a bet, big bets twice the small, cap 4.
fn solved_game(g: &GameInfo) -> bool {
    g.variant == "triple-draw"
        && g.structure == "fixed-limit"
        && g.ante == 0
        && g.small_blind * 2 == g.big_blind
        && g.small_bet == g.big_blind
        && g.big_bet == 2 * g.small_bet
        && g.cap == TD_FL.cap
        && !g.heads_up_uncapped
        && !g.ace_five_straight
}

/// Where this hand is in the solved tree.
#[derive(Clone, Copy, Debug)]
struct Walk {
    /// This bot's position in the tree (0: the button).
    me: u8,
    seat: SeatNo,
    node: u32,
    /// The opponent's last draw count.
    opp_drew: u8,
}

/// See the module's documentation.
pub struct CfrBot {
    fallback: AdaptiveBot,
    /// The match's big blind when it is the solved game.
    game: Option<u64>,
    rng: Rng,
    /// Whether this hand is played from the strategy (else by `fallback`, from its start).
    solved: bool,
    /// Where the hand is in the tree; `None` once it left it.
    walk: Option<Walk>,
}

impl CfrBot {
    pub fn new(seed: u64) -> CfrBot {
        CfrBot {
            fallback: AdaptiveBot::new(seed),
            game: None,
            rng: Rng::new(seed ^ 0x6366_725f_626f_7421),
            solved: false,
            walk: None,
        }
    }

    /// How many hands every `cfr` of this process began from the strategy, and how many of them
    /// left the solved tree (played passively from there): a test's view of whether the bot
    /// follows real hands.
    pub fn tally() -> (u64, u64) {
        (PLAYED.load(Ordering::Relaxed), LEFT.load(Ordering::Relaxed))
    }

    /// Follows the hand's betting events down the tree.
    fn follow(&mut self, events: &[Event]) {
        let Some(w) = self.walk.as_mut() else {
            return;
        };
        let tree = &solved().tree;
        for e in events {
            let (seat, k) = match *e {
                Event::Fold { seat } => (seat, 0),
                Event::Check { seat } | Event::Call { seat, .. } => (seat, 1),
                Event::Raise { seat, .. } => (seat, 2),
                Event::Discard { seat, count, .. } => {
                    if seat != w.seat {
                        w.opp_drew = count;
                    }
                    continue;
                }
                Event::BringIn { .. } => (0, 3),
                _ => continue,
            };
            let node = tree.nodes[w.node as usize];
            let player = if seat == w.seat { w.me } else { 1 - w.me };
            let next = if k < 3 && node.player == player {
                node.next[k]
            } else {
                Next::Illegal
            };
            match next {
                Next::Node(m) => w.node = m,
                // The hand is over for the tree; nothing is asked after it.
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

    fn bet(&mut self, req: &ActRequest) -> Option<Action> {
        let w = self.walk?;
        let s = solved();
        let node = s.tree.nodes[w.node as usize];
        if node.player != w.me || req.view.cards.len() != 5 {
            return None;
        }
        let hand: CardSet = req.view.cards.iter().collect();
        let class = if node.round < 3 {
            td::draw_class(hand, 3 - node.round).0
        } else {
            td::final_class(hand)
        };
        let i = infoset(w.node, class as u8, td::opp_class(w.opp_drew) as u8);
        let p = s.strategy.at(i)?;
        let legal = [req.legal.fold, true, req.legal.raise.is_some()];
        let pf = p.map(|x| f32::from(x) / 255.0);
        let a = pitboss_cfr::mccfr::pick(pf, legal, self.rng.unit());
        Some(match a {
            0 => Action::Fold,
            2 => util::min_raise(&req.legal)?,
            _ if req.legal.check => Action::Check,
            _ => Action::Call,
        })
    }
}

impl Bot for CfrBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.game = solved_game(&m.game).then_some(m.game.big_blind);
        self.fallback.match_start(m);
    }

    fn hand_start(&mut self, h: &HandStart) {
        // Four capped rounds cost at most 24 big blinds heads-up: deeper stacks never matter.
        let deep = |bb: u64| h.stacks.iter().all(|&s| s >= 24 * bb);
        self.solved = h.seats == 2 && self.game.is_some_and(deep);
        self.walk = self.solved.then_some(Walk {
            me: u8::from(h.seat != h.button),
            seat: h.seat,
            node: 0,
            opp_drew: 0,
        });
        if self.solved {
            PLAYED.fetch_add(1, Ordering::Relaxed);
        } else {
            self.fallback.hand_start(h);
        }
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        if !self.solved {
            return self.fallback.act(req);
        }
        self.follow(&req.events);
        if let Some(max) = req.legal.discard {
            return standard_draw(req, max);
        }
        self.bet(req).unwrap_or_else(|| util::passive(&req.legal))
    }

    fn hand_end(&mut self, h: &HandEnd) {
        if !self.solved {
            self.fallback.hand_end(h);
        }
    }
}
