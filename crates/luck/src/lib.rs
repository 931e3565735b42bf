//! Luck-adjusted results: the referee removes most of the luck of the deal from each hand's result
//! with control variates at its chance events, so that fewer hands tell two bots apart.
//!
//! # The estimator
//!
//! A hand is a sequence of decisions (by the bots) and chance events (a card from the stub to a
//! seat, or stud's community card). The referee sees every card, so at each chance event it knows
//! the state `h` just before and the set `S(h)` of cards the stub could produce: by the deck's
//! construction (a lazy Fisher–Yates shuffle, `pitboss_cards::Deck`), the next card is uniform
//! over the cards still in the stub, given everything dealt so far. That set is the cards never
//! dealt, or — in triple draw after the stub ran out — exactly the muck the rules reshuffle
//! (earlier discards, folded hands and the discards of players already served this draw, never
//! those of the player being served or of players not yet served; RULES.md "Running out of
//! cards"). Stud never reshuffles: its short seventh street deals one community card from the same
//! stub.
//!
//! Let `V_i(h)` be any function of the state (all cards, chips committed, who folded). At chance
//! event `t` with state `h_t` before and `h_t·c` after card `c`, the correction for seat `i` is
//!
//! ```text
//! δ_i,t = V_i(h_t·c) − E[V_i(h_t·C) | h_t] = V_i(h_t·c) − (1/|S(h_t)|) Σ_{x ∈ S(h_t)} V_i(h_t·x),
//! ```
//!
//! and the adjusted result of the hand is `net_i − Σ_t δ_i,t`. Given `h_t`, the card `C` is uniform
//! over `S(h_t)`, so `E[δ_i,t | h_t] = 0`; by the tower rule `E[δ_i,t] = 0` for every `t`, whatever
//! the bots do and whatever `V` is. The adjusted result therefore has the same expectation as the
//! raw one: it is **unbiased** for every `V`, and a `V` closer to `E[net_i | h]` only makes its
//! variance smaller (the variance removed is that of the part of the result that `V` explains).
//! Each dealt card is its own chance event (conditioning sequentially keeps each term mean-zero
//! and makes the expectation an exact enumeration of at most 52 cards: no sampling noise). This is
//! the chance-node half of AIVAT (N. Burch, M. Schmid, M. Moravčík, D. Morrill, M. Bowling, "AIVAT:
//! A New Variance Reduction Technique for Agent Evaluation in Imperfect Information Games", AAAI
//! 2018), whose value-function control variates cut the standard deviation of no-limit hold'em
//! results by 85%; DIVAT (D. Billings, M. Kan, "A Tool for the Direct Assessment of Poker
//! Decisions", ICGA Journal 29(3), 2006) did a similar baseline subtraction for limit hold'em. The
//! action-node terms of AIVAT (which need the bots' policies) are not used: bots are black boxes.
//!
//! # The value estimate
//!
//! `V_i = share_i · P − committed_i` for a live seat and `−committed_i` for a folded one, with the
//! shares of the live seats summing to one and `P` fixed before the card is seen (a fitted
//! function of the pot so far, the street and, for the all-in model, the number of live seats:
//! [`Scale`]). Then `Σ_i V_i = P − Σ_i committed_i` does not depend on the card, so the
//! corrections of a chance event sum to zero over the seats: the adjusted results of a hand, like
//! the raw ones, conserve chips. Two models give the shares ([`Model::recommended`] picks one per
//! game):
//!
//! - **Strength** (triple draw): a showdown as if it happened now between the live seats' strength
//!   keys (module [`value`]: a deuce-to-seven key, cards still to come counted as average cards;
//!   in stud the high and eight-or-better keys), ties split. The mean over the stub is enumerated
//!   exactly at every card.
//! - **All-in** (stud hi/lo): each live seat's expected share if every live seat went to the
//!   showdown, over the cards still to come, everything dealt so far known — a martingale: its
//!   mean after a card, over the card, *is* its value before (the tower rule, as every card to
//!   come is uniform over the stub). So the mean the correction subtracts needs no enumeration;
//!   and since nothing happens between the cards of a street's deal, the deal is one chance event
//!   with `δ_i = P · (A_i(after) − A_i(before))` (a compound chance event is mean-zero like each
//!   of its cards). `A` is estimated by Monte Carlo (exactly when one card is missing in all) from
//!   a generator seeded by the match's secret and the deal number, independent of the deck: the
//!   estimate after is unbiased for `A(after)`, whose mean over the cards is `A(before)`, for which
//!   the estimate before is unbiased too — so `E[δ_i] = 0` over the cards and the sampler
//!   together, which is all the adjusted result's unbiasedness needs. The sampler's noise only
//!   adds variance (kept small by a budget of deals per estimate). After a fold the estimate for
//!   the seats still in comes from the same deals (the cards have not changed, only who shares
//!   the pot; the deals are still uniform completions of the cards, so it is unbiased too). A
//!   second, centred term `Q · (L_i − mean L)` with `L_i` the expected low half is a martingale
//!   too and is fitted alongside. The showdown-now shares judge
//!   made hands well and draws badly (a four-card low with three cards to come is about half a
//!   low, not all or nothing): in stud hi/lo the all-in model removes far more of the luck.
//!
//! # Once the betting is over
//!
//! From the moment at most one live seat has chips behind (everybody else all-in: the stacks are
//! known to the referee), nothing the bots do can change the pot any more: what is left of the
//! hand is chance (and in triple draw the draws). [`Model::Stacks`] then scales the shares by the
//! pot itself, `P` = the pot and no low term, and uses shares that are the seats' real
//! expectations at the showdown that must come: in stud the all-in shares above (exact there, not
//! an approximation); in triple draw, heads-up, the all-in shares of the rest of the hand with
//! every draw still to declare made by the standard drawing rule (module `draw_allin`; the bots
//! may draw otherwise — a decision, where no correction is taken — and each correction stays
//! mean-zero, as its docs show), one correction per seat's cards of a draw. With them the luck
//! of the cards after an all-in leaves the result (up to the sampler's noise), rather than the
//! part a fitted scale of the pot catches. Measured in the README (pot and no limit).
//!
//! # Bet sizes (opt-in)
//!
//! In pot and no limit the chips a card moves depend on how much of the stacks behind will still
//! go in, which the pot so far does not say. [`Model::Sized`] (`luck_model = "sized48"` in a match
//! file) adds, heads-up in triple draw while both seats can bet, a term `B · γ · (s − ½)` by the
//! class of the weaker holding (module [`sized`]), mean-zero like the rest. Its `γ`, fitted on
//! the sound house bots, predicts stacks going in when both hands are good: right for bots that
//! bet their hands, wrong for bots whose betting ignores their cards (a calling station): it is
//! unbiased for both, but widens the second kind's intervals, so it is not the default (README,
//! measured).
//!
//! # Cost
//!
//! Strength model: a dealt card to seat `r` changes only `r`'s key; the others' best keys are
//! computed once, every card of the stub then costs one or two key evaluations and a comparison,
//! and the mean share vector is a weighted sum over the dozen possible comparison outcomes. In
//! triple draw a card's key depends on its rank only (unless it can make a flush): each rank the
//! stub holds costs one table lookup by rank mask, or for a pair a packing from the rank counts
//! (nothing when a pair must lose), and three outcome counts (worse, equal, better) suffice.
//! All-in model: one estimate per street's deal (heads-up 96 deals; three or four seats a budget
//! of `3 · STUD_SAMPLES` seven-card evaluations, five or more `2 · STUD_SAMPLES`: eight seats 12
//! deals); after a fold the shares of the seats still in come from the same deals (comparisons
//! only) unless the seventh card would now come differently (community or not). The README gives the measured cost per hand (`cargo bench -p pitboss-luck`).

mod allin;
mod draw_allin;
pub mod sized;
pub mod value;

use pitboss_cards::{Card, CardSet, Rank, Suit};
use pitboss_rules::{Event, Game, Seat, Structure, Variant, MAX_SEATS};

/// Which value estimate `V` the corrections use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Showdown-now shares from the strength keys of [`value`] (the default).
    Strength,
    /// Shares from a hash of each seat's cards: a value estimate with no information about the
    /// result, for tests that the adjusted result stays unbiased with a poor `V`.
    Noise,
    /// Stud: all-in shares (module `allin`) estimated from deals of the cards to come (this many
    /// is the base, see [`STUD_SAMPLES`]), one correction per street's deal; triple draw: as
    /// [`Model::Strength`].
    AllIn(u32),
    /// What the referee uses since the stacks were taken into account ([`MODEL_NAME`]): as
    /// [`Model::AllIn`] with this base, and once the betting is over (at most one live seat has
    /// chips behind: everything left is chance and the final pot is the pot now) the pot share
    /// scaled by the pot itself; in triple draw the strength model while anybody can still bet,
    /// and once nobody can, heads-up, the all-in shares of module `draw_allin` (the draws to come
    /// by the standard drawing rule), one correction per seat's cards of a draw. Needs the stacks
    /// ([`Adjuster::with_stacks`]); without them it is [`Model::AllIn`].
    Stacks(u32),
    /// Opt-in ([`SIZED_MODEL_NAME`]): as [`Model::Stacks`], with the scale fitted per betting
    /// structure ([`Scale::for_game`]) and, in pot- and no-limit triple draw heads-up, the size
    /// term of module [`sized`] (how much of the stacks behind both hands will put in). Elsewhere
    /// it is [`Model::Stacks`] to the bit.
    Sized(u32),
}

impl Model {
    /// The model the referee uses, [`Model::Stacks`] in both games: all-in shares in stud hi/lo
    /// ([`STUD_SAMPLES`] sets the deals per estimate), the strength model in triple draw while
    /// anybody can bet (whose one correction per card already removes most of the luck there, and
    /// where all-in shares would need the players' drawing choices), and in both the pot itself
    /// as the scale once nobody can.
    pub fn recommended(_variant: Variant) -> Model {
        Model::Stacks(STUD_SAMPLES)
    }

    /// The model of plans recorded as [`LEGACY_MODEL_NAME`]: the all-in model in stud, the
    /// strength model in triple draw, neither knowing the stacks.
    pub fn legacy(variant: Variant) -> Model {
        match variant {
            Variant::StudHiLo => Model::AllIn(STUD_SAMPLES),
            Variant::TripleDraw => Model::Strength,
        }
    }

    /// The model recorded as `name` in a plan, for `variant`: `None` (plans made before names were
    /// recorded) the strength model, [`MODEL_NAME`] the recommended one, [`SIZED_MODEL_NAME`]
    /// the opt-in [`Model::Sized`], [`LEGACY_MODEL_NAME`]
    /// the one before it; any other name is unknown to this version.
    pub fn by_name(name: Option<&str>, variant: Variant) -> Option<Model> {
        match name {
            None => Some(Model::Strength),
            Some(MODEL_NAME) => Some(Model::recommended(variant)),
            Some(SIZED_MODEL_NAME) => Some(Model::Sized(STUD_SAMPLES)),
            Some(LEGACY_MODEL_NAME) => Some(Model::legacy(variant)),
            Some(_) => None,
        }
    }
}

/// The name of the referee's current value model, recorded in tournament plans so that a resumed
/// or merged tournament keeps the model it began with (a plan without a name is from before the
/// all-in model: [`Model::by_name`] gives the strength model for it).
pub const MODEL_NAME: &str = "stacks48";

/// The name of [`Model::Sized`], chosen in a match file (`luck_model = "sized48"`); not the
/// default, because its size term, fitted on sound bots, widens the intervals of bots that never
/// put stacks in with strong hands (README, issue #28).
pub const SIZED_MODEL_NAME: &str = "sized48";

/// The name of the model before the stacks were taken into account ([`Model::legacy`]).
pub const LEGACY_MODEL_NAME: &str = "allin48";

/// The base of the deals per all-in estimate in stud: heads-up `2 · STUD_SAMPLES`, three or four
/// live seats `3 · STUD_SAMPLES / live`, more `2 · STUD_SAMPLES / live` (eight seats 12). The
/// variance of an estimate's noise falls as one over the deals, its cost grows with them (figures
/// in docs/PERFORMANCE.md).
pub const STUD_SAMPLES: u32 = 48;

/// One chance event as the estimator saw it (for tests and diagnostics).
#[derive(Clone, Copy, Debug)]
pub struct Chance<'a> {
    /// The index of the `Deal` or `Community` event in the hand's events.
    pub index: usize,
    /// The cards the stub could have produced.
    pub candidates: CardSet,
    /// `δ_i` for each seat, in chips.
    pub corrections: &'a [f64],
    /// The share part of `δ_i`: the seat's share after the card minus its mean share.
    pub shares: &'a [f64],
    /// All-in model: the low part, the change of the seat's expected low half minus the live
    /// seats' mean (so that it sums to zero); zero for the strength model.
    pub low_shares: &'a [f64],
    /// [`Model::Sized`]: the size features of module [`sized`] times the chips behind, for each
    /// seat (the correction adds `Σ_j γ_j` times them); zero elsewhere.
    pub sized: &'a [[f64; sized::CLASSES]],
    /// Betting rounds begun before the card (0: cards before the first round; stud street − 3).
    pub street: u8,
    /// Chips committed so far by all seats.
    pub pot: u64,
    /// The entry of [`Scale`] that scaled this correction (the street, the model that made it —
    /// the all-in model corrects a street's deal at once, the strength model one card — and for
    /// the all-in model how many seats were live).
    pub scale_index: usize,
}

/// The replayed state of a hand at a chance event.
#[derive(Clone, Copy, Debug)]
struct State {
    n: usize,
    held: [CardSet; MAX_SEATS],
    live: [bool; MAX_SEATS],
    total: [u64; MAX_SEATS],
    bet: [u64; MAX_SEATS],
    /// The stub: cards that may come next.
    unseen: CardSet,
    /// Cards a triple-draw reshuffle would use.
    muck: CardSet,
    /// This draw's discards of a seat not fully served yet, and how many cards it still gets.
    pending: [CardSet; MAX_SEATS],
    to_serve: [u8; MAX_SEATS],
    /// Draws each seat has declared (triple draw).
    drawn: [u8; MAX_SEATS],
    /// Every seat's stack at the start of the hand; 0: not known (the betting is never over).
    stack: [u64; MAX_SEATS],
}

impl State {
    fn new(n: usize) -> State {
        State {
            n,
            held: [CardSet::EMPTY; MAX_SEATS],
            live: [false; MAX_SEATS],
            total: [0; MAX_SEATS],
            bet: [0; MAX_SEATS],
            unseen: CardSet::FULL,
            muck: CardSet::EMPTY,
            pending: [CardSet::EMPTY; MAX_SEATS],
            to_serve: [0; MAX_SEATS],
            drawn: [0; MAX_SEATS],
            stack: [0; MAX_SEATS],
        }
    }

    /// Whether the betting is over: the stacks are known and at most one live seat has chips
    /// behind (at a chance event every bet has been called or returned). Everything left is then
    /// chance (and, in triple draw, the draws), and the pot is final.
    fn closed(&self) -> bool {
        self.stack[0] > 0
            && (0..self.n)
                .filter(|&i| self.live[i] && self.total[i] < self.stack[i])
                .count()
                <= 1
    }

    fn live_count(&self) -> usize {
        self.live[..self.n].iter().filter(|l| **l).count()
    }

    fn pot(&self) -> u64 {
        self.total[..self.n].iter().sum()
    }
}

/// Computes the corrections of hands of one game. Reusable: it holds no per-hand allocation.
#[derive(Clone, Debug)]
pub struct Adjuster {
    model: Model,
    variant: Variant,
    ace_five_straight: bool,
    st: State,
    delta: [f64; MAX_SEATS],
    share_delta: [f64; MAX_SEATS],
    low_delta: [f64; MAX_SEATS],
    sized_delta: [[f64; sized::CLASSES]; MAX_SEATS],
    /// Pot or no limit: the size term of [`Model::Sized`] applies.
    big_bet: bool,
    street: u8,
    unit: f64,
    scale: Scale,
    /// The keys of each seat's current cards, computed at most once between changes.
    cache: [Option<Keys>; MAX_SEATS],
    /// The keys of the seat served at the last chance event with its card, when that event
    /// computed them (deuce-to-seven): the next entry of its `cache`.
    dealt: Option<Keys>,
    /// All-in model: the shares of the current state, if estimated since the last change of the
    /// live seats, and the street's deal being gathered (shares before it, stub before it).
    allin: Option<allin::Shares>,
    /// Somebody folded since `allin` was estimated: it must be recomputed for the seats still in
    /// (from the same deals, `store`).
    stale: bool,
    store: allin::Store,
    group: Option<Group>,
    rng: allin::Rng,
    /// All-in model: the most live seats for which a street's deal uses the all-in shares (more
    /// use the strength model card by card, which costs far less at a full table).
    allin_live: usize,
    /// Every seat's stack at the start of a hand (0: not known).
    stack: [u64; MAX_SEATS],
}

/// A street's deal gathered into one chance event (all-in model).
#[derive(Clone, Copy, Debug)]
struct Group {
    before: allin::Shares,
    candidates: CardSet,
    index: usize,
}

/// The scale `P` of the shares before the cards of each street: `P = pot · a + unit · b` (the
/// game's unit: big blind, stud small bet). Any `P` fixed before the card keeps the estimate
/// unbiased; these were fitted by least squares on matches of the built-in bots (`cargo run
/// --release -p pitboss-arena --example luck_fit`), so that `P` approximates how many chips the
/// luck of a card moves by the end of the hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale(
    pub [(f64, f64); Scale::LEN],
    pub [(f64, f64); Scale::LEN],
    /// [`Model::Sized`]: `γ` of the size term (module [`sized`]) per street and class.
    pub [[f64; sized::CLASSES]; 6],
);

impl Scale {
    /// `P` = the pot so far (no fitting).
    pub const POT: Scale = Scale(
        [(1.0, 0.0); Scale::LEN],
        [(0.0, 0.0); Scale::LEN],
        [[0.0; sized::CLASSES]; 6],
    );

    /// Entries: six streets for each of the strength model, and the all-in model with two, three
    /// or four, and five or more live seats (how far shares move, and how big the pot grows,
    /// differ a lot between heads-up and a full table); then six for the all-in shares once the
    /// betting is over ([`Model::Stacks`]), where the pot will not grow: `P` = the pot, `Q` = 0.
    pub const LEN: usize = 30;

    /// The entry of an all-in correction once the betting is over.
    pub fn closed_index(street: u8) -> usize {
        24 + usize::from(street).min(5)
    }

    /// The entry of a correction: street (betting rounds begun), model and live seats.
    pub fn index(street: u8, allin: bool, live: usize) -> usize {
        let class = match (allin, live) {
            (false, _) => 0,
            (true, ..=2) => 1,
            (true, 3..=4) => 2,
            (true, _) => 3,
        };
        usize::from(street).min(5) + 6 * class
    }

    /// The fitted default of a game.
    pub fn fitted(variant: Variant) -> Scale {
        // `luck_fit 10000` (10,000 hands per table of five tables per game, seed 1; checked on
        // seed 2): held-out sd per hand 27td-fl raw 1055.6, P = pot 883.4, fitted 831.4;
        // stud8-fl raw 2298.2, P = pot 1779.5, fitted 1665.2.
        let mut t = [(1.0, 0.0); Scale::LEN];
        let mut low = [(0.0, 0.0); Scale::LEN];
        match variant {
            Variant::TripleDraw => t[..6].copy_from_slice(&[
                (0.0, 0.771),
                (0.353, 0.209),
                (0.699, 0.103),
                (1.057, -0.503),
                (1.0, 0.0),
                (1.0, 0.0),
            ]),
            Variant::StudHiLo => {
                t[..6].copy_from_slice(&[
                    (1.858, -0.484),
                    (0.327, 0.507),
                    (0.319, 1.346),
                    (0.447, 2.576),
                    (0.970, 2.278),
                    (1.0, 0.0),
                ]);
                t[6..24].copy_from_slice(&STUD_ALLIN);
                low[6..24].copy_from_slice(&STUD_ALLIN_LOW);
            }
        }
        Scale(t, low, [[0.0; sized::CLASSES]; 6])
    }

    /// The fitted scale of [`Model::Sized`] for a game: fixed limit as [`Scale::fitted`]; pot and
    /// no limit fitted on their own (`LUCK_MODEL=sized:48 ONLY_GAME=… luck_fit`), where the size
    /// term carries what the pot so far cannot say.
    pub fn for_game(game: &Game) -> Scale {
        let mut s = Scale::fitted(game.variant);
        match (game.variant, game.structure) {
            (_, Structure::FixedLimit) => {}
            (Variant::TripleDraw, Structure::PotLimit) => {
                s.0[..6].copy_from_slice(&TD_PL.0);
                s.2 = TD_PL.1;
            }
            (Variant::TripleDraw, Structure::NoLimit) => {
                s.0[..6].copy_from_slice(&TD_NL.0);
                s.2 = TD_NL.1;
            }
            (Variant::StudHiLo, _) => {}
        }
        s
    }
}

/// Pot-limit triple draw: `P` of the strength model per street, `γ` of the size term per street
/// and class of the weaker holding. `T="adaptive,lowball;equity,adaptive;cfr,equity;cfr,lowball;
/// cfr,adaptive;lowball,lowball;equity,equity" LUCK_MODEL=sized:48 ONLY_GAME=27td-pl TABLE="$T"
/// CHECK="equity,lowball;lowball,raise;call,raise;call,equity" luck_fit 20000` (heads-up tables of
/// the sound bots, seed 1; checked on seed 2, `equity`–`lowball` held out of the fit): held-out
/// sd per hand `equity`–`lowball` 1617.8 raw, 1519.4 with `P` = pot, 1209.1 fitted.
const TD_PL: ([(f64, f64); 6], [[f64; sized::CLASSES]; 6]) = (
    [
        (0.0, 0.017),
        (0.693, 0.036),
        (1.058, 0.033),
        (1.320, 0.026),
        (1.0, 0.0),
        (1.0, 0.0),
    ],
    [
        [0.0018, 0.0015, 0.0015, 0.4903, 1.2351],
        [-0.0124, -0.0083, -0.0111, 1.2373, 2.0716],
        [-0.0230, -0.0181, -0.0022, 1.1075, 1.7165],
        [-0.0170, -0.0194, -0.0070, 0.4942, 1.4734],
        [0.0; sized::CLASSES],
        [0.0; sized::CLASSES],
    ],
);

/// No-limit triple draw, as [`TD_PL`] (`ONLY_GAME=27td-nl`): `equity`–`lowball` 1617.8 raw,
/// 1519.4 with `P` = pot, 1189.9 fitted.
const TD_NL: ([(f64, f64); 6], [[f64; sized::CLASSES]; 6]) = (
    [
        (0.0, 0.030),
        (0.803, 0.037),
        (1.179, 0.034),
        (1.475, 0.031),
        (1.0, 0.0),
        (1.0, 0.0),
    ],
    [
        [0.0021, 0.0019, 0.0014, 1.0379, 1.9252],
        [-0.0140, -0.0096, -0.0122, 1.2852, 2.0523],
        [-0.0285, -0.0245, -0.0006, 1.1683, 1.7107],
        [-0.0244, -0.0267, 0.0013, 0.5543, 1.8366],
        [0.0; sized::CLASSES],
        [0.0; sized::CLASSES],
    ],
);

/// The fitted all-in entries of stud (two, three or four, five or more live seats; six streets):
/// `DUP=both LUCK_MODEL=allin:48 ONLY_GAME=stud8-fl luck_fit 10000` (ten tables, heads-up to
/// eight seats, plain hands and duplicate units alike, each set weighted by its raw variance;
/// fitted on seed 1, checked on seed 2): held-out sd per plain hand 1858.6 raw, 1098.1 with
/// `P` = pot, 885.6 fitted.
const STUD_ALLIN: [(f64, f64); 18] = [
    (0.725, 1.813),
    (3.086, 0.136),
    (2.819, 0.386),
    (1.738, 0.716),
    (1.267, 0.479),
    (1.0, 0.0),
    (10.093, 12.616),
    (1.443, 18.895),
    (1.576, 18.234),
    (1.332, 11.463),
    (1.133, 3.807),
    (1.0, 0.0),
    (7.790, 4.869),
    (1.963, 11.080),
    (2.264, 8.004),
    (1.645, 4.436),
    (1.159, 3.782),
    (1.0, 0.0),
];

/// The fitted scale `Q` of the centred low share (all-in model, stud; entries as above).
const STUD_ALLIN_LOW: [(f64, f64); 18] = [
    (0.276, 0.691),
    (0.153, 1.074),
    (-0.241, 1.896),
    (0.045, 1.450),
    (-0.045, 0.176),
    (0.0, 0.0),
    (0.660, 0.825),
    (0.103, 3.106),
    (0.129, 2.626),
    (-0.010, 2.016),
    (0.045, 0.470),
    (0.0, 0.0),
    (4.992, 3.120),
    (0.541, 3.971),
    (0.242, 2.404),
    (0.085, 0.681),
    (-0.005, 0.882),
    (0.0, 0.0),
];

/// The strength keys of a seat: high (or deuce-to-seven) and, in stud, eight-or-better (0 = none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Keys {
    hi: u32,
    lo: u32,
}

impl Adjuster {
    pub fn new(game: &Game, model: Model) -> Adjuster {
        Adjuster {
            model,
            variant: game.variant,
            ace_five_straight: game.options.ace_five_straight,
            st: State::new(0),
            delta: [0.0; MAX_SEATS],
            share_delta: [0.0; MAX_SEATS],
            low_delta: [0.0; MAX_SEATS],
            sized_delta: [[0.0; sized::CLASSES]; MAX_SEATS],
            big_bet: game.structure != Structure::FixedLimit,
            street: 0,
            unit: game.unit() as f64,
            scale: match model {
                Model::Sized(_) => Scale::for_game(game),
                _ => Scale::fitted(game.variant),
            },
            cache: [None; MAX_SEATS],
            dealt: None,
            allin: None,
            stale: false,
            store: allin::Store::default(),
            group: None,
            rng: allin::Rng::new(0),
            allin_live: MAX_SEATS,
            stack: [0; MAX_SEATS],
        }
    }

    /// The stack each seat starts every hand with, by seat, so that [`Model::Stacks`] knows when
    /// the betting is over (without them it never is).
    pub fn with_stacks(mut self, stacks: &[u64]) -> Adjuster {
        self.stack = [0; MAX_SEATS];
        for (s, v) in self.stack.iter_mut().zip(stacks) {
            *s = *v;
        }
        self
    }

    /// All-in model: use the all-in shares only while at most `live` seats are live.
    pub fn with_allin_live(mut self, live: usize) -> Adjuster {
        self.allin_live = live;
        self
    }

    /// Seeds the all-in model's sampler for the next hand: `secret` from the match (the referee
    /// uses `DeckKey::side_seed`, as secret as the decks, so that no bot can foresee the
    /// estimator's noise), `deal` the hand's deal number (the rotations of a duplicate deal then
    /// draw the same samples, and their noise cancels like their cards' luck). The sampler must be
    /// independent of the deck, as each correction's zero mean requires; a different generator
    /// under a different stream is.
    pub fn seed_hand(&mut self, secret: u64, deal: u64) {
        self.rng = allin::Rng::new(secret ^ deal.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }

    /// Replaces the scale `P` (see [`Scale`]).
    pub fn with_scale(mut self, scale: Scale) -> Adjuster {
        self.scale = scale;
        self
    }

    /// The total correction `Σ_t δ_i,t` of each seat of a finished hand at a table of `seats`,
    /// written to `out[..seats]` in chips; the adjusted result is `net_i − out[i]`. `events` must be
    /// the referee's full record (hidden cards included); the sum of `out` is zero up to rounding.
    pub fn hand(&mut self, seats: usize, events: &[Event], out: &mut [f64]) {
        out[..seats].fill(0.0);
        self.replay(seats, events, |c| {
            for (o, d) in out.iter_mut().zip(c.corrections) {
                *o += d;
            }
        });
    }

    /// Replays a hand (or a prefix of one) and calls `f` at each chance event.
    pub fn replay(&mut self, seats: usize, events: &[Event], mut f: impl FnMut(Chance<'_>)) {
        self.st = State::new(seats);
        self.st.stack = self.stack;
        self.st.live[..seats].fill(true);
        self.street = 0;
        self.cache = [None; MAX_SEATS];
        self.dealt = None;
        self.allin = None;
        self.stale = false;
        self.group = None;
        let draw = self.variant == Variant::TripleDraw;
        let grouped = matches!(
            self.model,
            Model::AllIn(_) | Model::Stacks(_) | Model::Sized(_)
        ) && !draw;
        let mut informed = true;
        for (index, e) in events.iter().enumerate() {
            if self.group.is_some() && !matches!(e, Event::Deal { card: Some(_), .. }) {
                self.close_group(seats, &mut f);
            }
            let st = &mut self.st;
            match *e {
                Event::Round { .. } => {
                    st.bet = [0; MAX_SEATS];
                    self.street += 1;
                }
                Event::Ante { seat, amount, .. } => st.total[seat.index()] += amount,
                Event::Blind { seat, amount, .. }
                | Event::BringIn { seat, amount, .. }
                | Event::Call { seat, amount, .. } => {
                    st.total[seat.index()] += amount;
                    st.bet[seat.index()] += amount;
                }
                Event::Raise { seat, to, .. } => {
                    let i = seat.index();
                    st.total[i] += to.saturating_sub(st.bet[i]);
                    st.bet[i] = to;
                }
                Event::Return { seat, amount } => {
                    let i = seat.index();
                    st.total[i] = st.total[i].saturating_sub(amount);
                    st.bet[i] = st.bet[i].saturating_sub(amount);
                }
                Event::Fold { seat } => {
                    let i = seat.index();
                    st.live[i] = false;
                    self.stale = true;
                    if draw {
                        st.muck = st.muck.union(st.held[i]);
                    }
                }
                Event::Discard { seat, count, cards } => {
                    let i = seat.index();
                    match cards {
                        Some(c) => {
                            self.cache[i] = None;
                            st.held[i] = st.held[i].difference(c);
                            st.pending[i] = c;
                            // A decision: the all-in shares of the state before it are no longer
                            // those of the state now.
                            self.allin = None;
                        }
                        // A redacted record: the hand can no longer be followed. Stopping the
                        // corrections keeps every term so far mean-zero.
                        None => informed = false,
                    }
                    st.to_serve[i] = count;
                    st.drawn[i] = st.drawn[i].saturating_add(1);
                }
                Event::Reshuffle { .. } => {
                    st.unseen = st.muck;
                    st.muck = CardSet::EMPTY;
                }
                Event::Deal { seat, card, .. } => {
                    let Some(c) = card else {
                        informed = false;
                        continue;
                    };
                    let candidates = self.st.unseen;
                    let draw_allin = draw && informed && self.draw_allin();
                    if draw_allin
                        || grouped
                            && informed
                            && (2..=self.allin_live).contains(&self.st.live_count())
                    {
                        self.gather(index, candidates);
                    } else if informed && self.st.live_count() >= 2 && candidates.contains(c) {
                        self.chance(Some(seat), c, candidates);
                        f(Chance {
                            index,
                            candidates,
                            corrections: &self.delta[..seats],
                            shares: &self.share_delta[..seats],
                            low_shares: &self.low_delta[..seats],
                            sized: &self.sized_delta[..seats],
                            street: self.street,
                            pot: self.st.pot(),
                            scale_index: Scale::index(self.street, false, 0),
                        });
                    }
                    let st = &mut self.st;
                    let i = seat.index();
                    if !st.unseen.remove(c) {
                        st.muck.remove(c);
                    }
                    st.held[i].insert(c);
                    // Its keys with the card, if the chance event just computed them.
                    self.cache[i] = self.dealt.take();
                    if self.group.is_none() {
                        self.allin = None;
                    }
                    if st.to_serve[i] > 0 {
                        st.to_serve[i] -= 1;
                        if st.to_serve[i] == 0 {
                            st.muck = st.muck.union(st.pending[i]);
                            st.pending[i] = CardSet::EMPTY;
                        }
                    }
                }
                Event::Community { card } => {
                    let candidates = self.st.unseen;
                    if grouped && informed && (2..=self.allin_live).contains(&self.st.live_count())
                    {
                        self.gather(index, candidates);
                    } else if informed && self.st.live_count() >= 2 && candidates.contains(card) {
                        self.chance(None, card, candidates);
                        f(Chance {
                            index,
                            candidates,
                            corrections: &self.delta[..seats],
                            shares: &self.share_delta[..seats],
                            low_shares: &self.low_delta[..seats],
                            sized: &self.sized_delta[..seats],
                            street: self.street,
                            pot: self.st.pot(),
                            scale_index: Scale::index(self.street, false, 0),
                        });
                    }
                    let st = &mut self.st;
                    st.unseen.remove(card);
                    self.cache = [None; MAX_SEATS];
                    if self.group.is_none() {
                        self.allin = None;
                    }
                    for i in 0..st.n {
                        if st.live[i] {
                            st.held[i].insert(card);
                        }
                    }
                }
                Event::Check { .. }
                | Event::Show { .. }
                | Event::Muck { .. }
                | Event::Award { .. } => {}
            }
        }
        if self.group.is_some() {
            self.close_group(seats, &mut f);
        }
    }

    /// All-in model: a card of a street's deal joins the chance event being gathered (the first
    /// one fixes the shares before it).
    fn gather(&mut self, index: usize, candidates: CardSet) {
        match &mut self.group {
            Some(g) => g.index = index,
            None => {
                let before = match (self.allin, self.stale) {
                    (Some(b), false) => b,
                    (Some(_), true) => self.allin_refold(),
                    (None, _) => self.allin_now(),
                };
                self.group = Some(Group {
                    before,
                    candidates,
                    index,
                });
            }
        }
        self.allin = None;
    }

    /// All-in model: the street's deal is complete; its correction is `P · (shares after − shares
    /// before)`, the shares after being kept for the next deal while nobody folds.
    fn close_group(&mut self, seats: usize, f: &mut impl FnMut(Chance<'_>)) {
        let Some(g) = self.group.take() else { return };
        let after = self.allin_now();
        self.allin = Some(after);
        self.stale = false;
        let closed = self.closed_now();
        let (p, q) = if closed {
            (self.st.pot() as f64, 0.0)
        } else {
            self.scales(true)
        };
        let live = self.st.live;
        let k = self.st.live_count() as f64;
        let mean_low = |s: &allin::Shares| {
            (0..self.st.n)
                .filter(|i| live[*i])
                .map(|i| s.low[i])
                .sum::<f64>()
                / k
        };
        let (m_after, m_before) = (mean_low(&after), mean_low(&g.before));
        for (i, &is_live) in live.iter().enumerate().take(self.st.n) {
            (self.share_delta[i], self.low_delta[i]) = if is_live {
                (
                    after.pot[i] - g.before.pot[i],
                    (after.low[i] - m_after) - (g.before.low[i] - m_before),
                )
            } else {
                (0.0, 0.0)
            };
            self.delta[i] = p * self.share_delta[i] + q * self.low_delta[i];
        }
        f(Chance {
            index: g.index,
            candidates: g.candidates,
            corrections: &self.delta[..seats],
            shares: &self.share_delta[..seats],
            low_shares: &self.low_delta[..seats],
            sized: &[[0.0; sized::CLASSES]; MAX_SEATS][..seats],
            street: self.street,
            pot: self.st.pot(),
            scale_index: if closed {
                Scale::closed_index(self.street)
            } else {
                Scale::index(self.street, true, self.st.live_count())
            },
        });
    }

    /// Whether the model scales the pot share by the pot itself now: it knows the stacks and
    /// nobody can bet any more.
    fn closed_now(&self) -> bool {
        matches!(self.model, Model::Stacks(_) | Model::Sized(_)) && self.st.closed()
    }

    /// Triple draw: whether the next cards are corrected by the all-in shares of module
    /// `draw_allin` — the betting is over, two seats are live, and the stub cannot run out
    /// before the showdown (a reshuffle would need the muck's order followed).
    fn draw_allin(&self) -> bool {
        self.closed_now() && self.st.live_count() == 2 && {
            let t = self.draw_table();
            t.most_needed() <= t.stub.len()
        }
    }

    fn draw_table(&self) -> draw_allin::DrawTable<'_> {
        draw_allin::DrawTable {
            n: self.st.n,
            held: &self.st.held,
            live: &self.st.live,
            stub: self.st.unseen,
            to_serve: &self.st.to_serve,
            drawn: &self.st.drawn,
            ace_five_straight: self.ace_five_straight,
        }
    }

    /// The all-in shares of the current state (all-in model).
    fn allin_now(&mut self) -> allin::Shares {
        // Heads-up `2 · base` deals (96: the cheapest estimates, and the ones whose noise weighs
        // most against the narrow intervals of two-bot matches); three or four seats a budget of
        // `3 · base` seat evaluations, five or more `2 · base` (eight seats: 12 deals), which
        // keeps a full table's cost per hand near the showdown-now model's. Measured with
        // `luck_fit` (20,000 hands a table): twice the budget narrows an eight-seat table's
        // interval by about 2% more.
        let live = self.st.live_count().max(1);
        let samples = match self.model {
            Model::AllIn(b) | Model::Stacks(b) | Model::Sized(b) if live <= 2 => 2 * b.max(1),
            Model::AllIn(b) | Model::Stacks(b) | Model::Sized(b) if live <= 4 => {
                3 * b.max(1) / live as u32
            }
            Model::AllIn(b) | Model::Stacks(b) | Model::Sized(b) => {
                (2 * b.max(1) / live as u32).max(1)
            }
            _ => 1,
        };
        let mut out = allin::Shares::default();
        if self.variant == Variant::TripleDraw {
            let mut rng = self.rng;
            draw_allin::draw_shares(&self.draw_table(), samples, &mut rng, &mut out);
            self.rng = rng;
            return out;
        }
        let t = allin::Table {
            n: self.st.n,
            held: &self.st.held,
            live: &self.st.live,
            stub: self.st.unseen,
        };
        allin::stud_shares(&t, samples, &mut self.rng, &mut out, &mut self.store);
        out
    }

    /// The all-in shares of the seats still in after folds, from the deals of the last estimate
    /// (the cards have not changed since), or a fresh estimate if there are none.
    fn allin_refold(&mut self) -> allin::Shares {
        if self.variant == Variant::TripleDraw {
            return self.allin_now();
        }
        let t = allin::Table {
            n: self.st.n,
            held: &self.st.held,
            live: &self.st.live,
            stub: self.st.unseen,
        };
        match allin::refold(&t, &self.store) {
            Some(s) => s,
            None => self.allin_now(),
        }
    }

    /// The scales `P` (of the pot share) and `Q` (of the centred low share) at the current state
    /// (fixed before the card is seen), for a correction by the strength model (`allin` false) or
    /// the all-in model.
    fn scales(&self, allin: bool) -> (f64, f64) {
        let i = Scale::index(self.street, allin, self.st.live_count());
        let ((a, b), (c, d)) = (self.scale.0[i], self.scale.1[i]);
        let pot = self.st.pot() as f64;
        (a * pot + b * self.unit, c * pot + d * self.unit)
    }

    /// Sets `self.delta` for a card `c` to `to` (`None`: the community card, to every live seat).
    fn chance(&mut self, to: Option<Seat>, c: Card, candidates: CardSet) {
        let n = self.st.n;
        // The keys of the seat served are not needed: its cards are about to change.
        let served = to.map_or(MAX_SEATS, |s| s.index());
        for i in 0..n {
            if self.st.live[i] && self.cache[i].is_none() && i != served {
                self.cache[i] = Some(self.keys(i, self.st.held[i]));
            }
        }
        let mut actual = [0.0; MAX_SEATS];
        let mut mean = [0.0; MAX_SEATS];
        self.dealt = None;
        match (to, self.model) {
            (Some(r), Model::Strength | Model::AllIn(_) | Model::Stacks(_) | Model::Sized(_)) => {
                let dealt = self.mean_fast(r.index(), c, candidates, &mut mean, &mut actual);
                self.dealt = dealt.map(|hi| Keys { hi, lo: 0 });
            }
            _ => {
                let mut s = [0.0; MAX_SEATS];
                for x in candidates.iter() {
                    self.shares_with(to, x, &mut s);
                    for (m, v) in mean.iter_mut().zip(&s) {
                        *m += v;
                    }
                }
                let k = f64::from(candidates.len());
                for m in &mut mean[..n] {
                    *m /= k;
                }
                self.shares_with(to, c, &mut actual);
            }
        }
        let (p, _) = self.scales(false);
        for i in 0..n {
            self.share_delta[i] = if self.st.live[i] {
                actual[i] - mean[i]
            } else {
                0.0
            };
            self.delta[i] = p * self.share_delta[i];
            self.low_delta[i] = 0.0;
        }
        self.sized_delta = [[0.0; sized::CLASSES]; MAX_SEATS];
        if let Some((r, o, behind)) = to.and_then(|r| self.sized_pair(r.index())) {
            let other = self.cache[o].expect("filled above").hi;
            let d = sized::deltas(
                self.st.held[r],
                c,
                candidates,
                other,
                self.ace_five_straight,
            );
            let gamma = &self.scale.2[usize::from(self.street).min(5)];
            let mut add = 0.0;
            for (j, v) in d.iter().enumerate() {
                self.sized_delta[r][j] = behind * v;
                self.sized_delta[o][j] = -behind * v;
                add += gamma[j] * behind * v;
            }
            self.delta[r] += add;
            self.delta[o] -= add;
        }
    }

    /// [`Model::Sized`]: whether a card to seat `r` takes the size term — pot- or no-limit triple
    /// draw, two live seats (`r` and `o`), both with chips behind — and the chips the shorter of
    /// them has behind (what can still go in).
    fn sized_pair(&self, r: usize) -> Option<(usize, usize, f64)> {
        let st = &self.st;
        if !matches!(self.model, Model::Sized(_))
            || !self.big_bet
            || self.variant != Variant::TripleDraw
            || st.stack[0] == 0
            || st.live_count() != 2
            || !st.live[r]
            || st.closed()
        {
            return None;
        }
        let o = (0..st.n).find(|&i| st.live[i] && i != r)?;
        let behind = st.stack[r]
            .saturating_sub(st.total[r])
            .min(st.stack[o].saturating_sub(st.total[o]));
        Some((r, o, behind as f64))
    }

    /// [`Adjuster::mean_fast`] in deuce-to-seven: no low, three outcomes (worse, equal, better than
    /// the others' best `best_hi`), and the same arithmetic as there in the same order (the shares
    /// are bit for bit the same).
    #[allow(clippy::too_many_arguments)]
    fn mean_fast_d27(
        &self,
        r: usize,
        c: Card,
        candidates: CardSet,
        keys: &[Keys; MAX_SEATS],
        best_hi: u32,
        mean: &mut [f64; MAX_SEATS],
        actual: &mut [f64; MAX_SEATS],
    ) -> Option<u32> {
        let n = self.st.n;
        let held = self.st.held[r];
        let a5 = self.ace_five_straight;
        // Every paired key is below every no-pair key: against a no-pair best a pair loses.
        let len = held.len();
        let recv = D27Receiver::new(held, len, a5, best_hi >= value::D27_NO_PAIR);
        let class = |key: u32| (key.cmp(&best_hi) as i32 + 1) as usize;
        // Four suited cards: a fifth of their suit makes a flush (`flush_lane`): those cards are
        // evaluated one by one, the others by rank.
        let b = held.bits();
        let lane = b.trailing_zeros() & 48;
        let lane_mask = if len != 4 || b >> lane > 0x1fff {
            0
        } else {
            0x1fffu64 << lane
        };
        let plain = candidates.bits() & !lane_mask;
        let suited_cards = candidates.bits() & lane_mask;
        let total = candidates.len();
        let plain_total = if suited_cards == 0 {
            total
        } else {
            total - suited_cards.count_ones()
        };
        let mut counts = recv.counts(plain, plain_total, best_hi);
        let suited = |x: Card| {
            let mut set = held;
            set.insert(x);
            value::d27_key(set, a5)
        };
        for x in CardSet::from_bits(suited_cards).iter() {
            counts[class(suited(x))] += 1;
        }
        // The key with the card dealt (`None`: a losing pair, not evaluated).
        let dealt = if CardSet::from_bits(plain).contains(c) {
            recv.exact_key(c)
        } else {
            Some(suited(c))
        };
        let c_class = class(dealt.unwrap_or(0));
        // The others' best: the seats that share it (`w_hi` of them: `mean_fast` sums ones in
        // `f64`, exact, the same).
        let mut best = [0usize; MAX_SEATS];
        let mut nb = 0;
        for i in (0..n).filter(|&i| self.st.live[i] && i != r) {
            if keys[i].hi == best_hi {
                best[nb] = i;
                nb += 1;
            }
        }
        let w_hi = nb as f64;
        // `mean_fast`'s share vector with no low (its classes 3, 7, 11 in that order).
        let vector = |[worse, equal, better]: [u32; 3], total: f64, out: &mut [f64; MAX_SEATS]| {
            let (mut to_r, mut to_hi) = (0.0f64, 0.0f64);
            if worse != 0 {
                to_hi += f64::from(worse) / w_hi;
            }
            if equal != 0 {
                to_r += f64::from(equal) / (w_hi + 1.0);
                to_hi += f64::from(equal) / (w_hi + 1.0);
            }
            if better != 0 {
                to_r += f64::from(better);
            }
            *out = [0.0; MAX_SEATS];
            out[r] = to_r / total;
            for &i in &best[..nb] {
                out[i] += to_hi / total;
            }
        };
        vector(counts, f64::from(total), mean);
        let mut one = [0u32; 3];
        one[c_class] = 1;
        vector(one, 1.0, actual);
        dealt
    }

    /// The suit lane of `held` in which one more card may make or improve a flush (the strength
    /// model), if any.
    #[inline]
    fn flush_lane(&self, held: CardSet) -> Option<u32> {
        let b = held.bits();
        let counts = (0..4u32).map(|l| ((b >> (16 * l)) & 0x1fff).count_ones());
        match self.variant {
            // High: five of seven cards; a lane of four may become a flush, one of five improve.
            Variant::StudHiLo => counts
                .enumerate()
                .find(|(_, c)| *c >= 4)
                .map(|(l, _)| l as u32),
            // Deuce-to-seven: the fifth card makes a flush of four suited cards.
            Variant::TripleDraw => (held.len() == 4)
                .then(|| {
                    counts
                        .enumerate()
                        .find(|(_, c)| *c == 4)
                        .map(|(l, _)| l as u32)
                })
                .flatten(),
        }
    }

    /// The keys of seat `i` holding `set`.
    #[inline]
    fn keys(&self, i: usize, set: CardSet) -> Keys {
        match (self.model, self.variant) {
            (Model::Noise, _) => {
                let h = set.bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64) << 7;
                Keys {
                    hi: ((h >> 40) % 1000) as u32 + 1,
                    lo: 0,
                }
            }
            (_, Variant::StudHiLo) => Keys {
                hi: value::high_key(set),
                lo: value::low_key(set, 7usize.saturating_sub(set.len() as usize)),
            },
            (_, Variant::TripleDraw) => Keys {
                hi: value::d27_key(set, self.ace_five_straight),
                lo: 0,
            },
        }
    }

    /// The shares of every seat if card `x` came to `to` (`None`: to every live seat).
    fn shares_with(&self, to: Option<Seat>, x: Card, out: &mut [f64; MAX_SEATS]) {
        let mut keys = [Keys::default(); MAX_SEATS];
        for (i, k) in keys.iter_mut().enumerate().take(self.st.n) {
            if self.st.live[i] {
                *k = match (to, self.cache[i]) {
                    (Some(r), Some(cached)) if r.index() != i => cached,
                    _ => {
                        let mut set = self.st.held[i];
                        set.insert(x);
                        self.keys(i, set)
                    }
                };
            }
        }
        self.split(&keys, out);
    }

    /// Shares from keys: a showdown now (the noise model: shares proportional to the keys).
    fn split(&self, keys: &[Keys; MAX_SEATS], out: &mut [f64; MAX_SEATS]) {
        let n = self.st.n;
        let live = &self.st.live;
        *out = [0.0; MAX_SEATS];
        if self.model == Model::Noise {
            let total: f64 = (0..n)
                .filter(|i| live[*i])
                .map(|i| f64::from(keys[i].hi))
                .sum();
            for i in (0..n).filter(|i| live[*i]) {
                out[i] = f64::from(keys[i].hi) / total;
            }
            return;
        }
        let best_hi = (0..n).filter(|i| live[*i]).map(|i| keys[i].hi).max();
        let best_lo = (0..n).filter(|i| live[*i]).map(|i| keys[i].lo).max();
        let Some(best_hi) = best_hi else { return };
        let best_lo = best_lo.unwrap_or(0);
        let hi_weight = if best_lo > 0 { 0.5 } else { 1.0 };
        let w_hi = (0..n)
            .filter(|i| live[*i] && keys[*i].hi == best_hi)
            .count() as f64;
        let w_lo = (0..n)
            .filter(|i| live[*i] && best_lo > 0 && keys[*i].lo == best_lo)
            .count() as f64;
        for i in (0..n).filter(|i| live[*i]) {
            if keys[i].hi == best_hi {
                out[i] += hi_weight / w_hi;
            }
            if best_lo > 0 && keys[i].lo == best_lo {
                out[i] += 0.5 / w_lo;
            }
        }
    }

    /// The mean shares over the candidates for a card to seat `r`: the other seats' keys are
    /// fixed, so each candidate only decides how `r`'s keys compare with the best of the others
    /// (worse, equal, better; for the low also "no low"). Counting the candidates per outcome and
    /// weighting one representative share vector per outcome gives the exact mean.
    fn mean_fast(
        &self,
        r: usize,
        c: Card,
        candidates: CardSet,
        mean: &mut [f64; MAX_SEATS],
        actual: &mut [f64; MAX_SEATS],
    ) -> Option<u32> {
        let n = self.st.n;
        let mut keys = [Keys::default(); MAX_SEATS];
        let (mut best_hi, mut best_lo) = (0u32, 0u32);
        for (i, k) in keys.iter_mut().enumerate().take(n) {
            if self.st.live[i] && i != r {
                *k = self.cache[i].expect("filled by chance()");
                best_hi = best_hi.max(k.hi);
                best_lo = best_lo.max(k.lo);
            }
        }
        if self.variant == Variant::TripleDraw {
            return self.mean_fast_d27(r, c, candidates, &keys, best_hi, mean, actual);
        }
        let held = self.st.held[r];
        let mut counts = [0u32; 12];
        let stud = self.variant == Variant::StudHiLo;
        let a5 = self.ace_five_straight;
        let to_come = 7usize.saturating_sub(held.len() as usize + 1);
        // Deuce-to-seven: when the others' best holds no pair, a paired holding of `r` is worse
        // whatever its key (every paired key is below every no-pair key): no need to compute it.
        let held_ranks = held.rank_mask();
        let pair_loses = !stud && best_hi >= value::D27_NO_PAIR;
        let held_paired = held_ranks.count_ones() < held.len();
        // Stud: when the others' best holds a pair or better, a no-pair holding of `r` (no pair,
        // no straight, no flush: the high card class, every key of which is lower) is worse.
        let hb = held.bits();
        let high_card_loses = stud
            && best_hi >= value::HIGH_PAIR
            && !held_paired
            && (0..4).all(|l| (hb >> (16 * l) & 0x1fff).count_ones() < 4);
        let classify = |x: Card| {
            let mut set = held;
            set.insert(x);
            let (hi, lo) = if stud {
                let m = u32::from(held_ranks) | 1 << x.rank() as u32;
                let no_pair = held_ranks >> x.rank() as u32 & 1 == 0;
                let straight = m & m << 1 & m << 2 & m << 3 & m << 4 != 0 || m & 0x100f == 0x100f;
                let hi = if high_card_loses && no_pair && !straight {
                    0
                } else {
                    value::high_key(set)
                };
                (hi, value::low_key(set, to_come))
            } else if pair_loses && (held_paired || held_ranks >> x.rank() as u32 & 1 == 1) {
                (0, 0)
            } else {
                (value::d27_key(set, a5), 0)
            };
            let hc = hi.cmp(&best_hi) as i32 + 1;
            let lc = if lo == 0 {
                3
            } else {
                lo.cmp(&best_lo) as i32 + 1
            };
            (hc * 4 + lc) as usize
        };
        // The keys depend on a card's suit only when it may complete or improve a flush: cards of
        // the other suits are evaluated once per rank, weighted by how many the stub holds.
        let flush = self.flush_lane(held);
        let lane_mask = flush.map_or(0, |l| 0x1fffu64 << (16 * l));
        let plain = candidates.bits() & !lane_mask;
        for rank in 0..13u8 {
            let lanes = plain >> rank & 0x0001_0001_0001_0001;
            if lanes != 0 {
                let suit = (lanes.trailing_zeros() / 16) as u8;
                let card = Card::new(Rank::from_index(rank), Suit::from_index(suit));
                counts[classify(card)] += lanes.count_ones();
            }
        }
        for x in CardSet::from_bits(candidates.bits() & lane_mask).iter() {
            counts[classify(x)] += 1;
        }
        let mut one = [0u32; 12];
        one[classify(c)] = 1;
        // The share vector of an outcome, in closed form: the high part goes to `r` alone
        // (better), to `r` and the others' best (equal) or to the others' best (worse); the low
        // part likewise, when anybody has a low (else the high part is the whole pot).
        let (mut w_hi, mut w_lo) = (0.0f64, 0.0f64);
        for i in (0..n).filter(|&i| self.st.live[i] && i != r) {
            w_hi += f64::from(u8::from(keys[i].hi == best_hi));
            w_lo += f64::from(u8::from(best_lo > 0 && keys[i].lo == best_lo));
        }
        let vector = |counts: &[u32; 12], total: f64, out: &mut [f64; MAX_SEATS]| {
            let (mut to_r, mut to_hi, mut to_lo) = (0.0, 0.0, 0.0);
            for (class, &count) in counts.iter().enumerate() {
                if count == 0 {
                    continue;
                }
                let (hc, lc) = (class / 4, class % 4);
                let w = f64::from(count);
                let any_low = lc != 3 || best_lo > 0;
                let (hi, lo) = if any_low { (0.5, 0.5) } else { (1.0, 0.0) };
                match hc {
                    2 => to_r += w * hi,
                    1 => {
                        to_r += w * hi / (w_hi + 1.0);
                        to_hi += w * hi / (w_hi + 1.0);
                    }
                    _ => to_hi += w * hi / w_hi,
                }
                match lc {
                    2 => to_r += w * lo,
                    1 => {
                        to_r += w * lo / (w_lo + 1.0);
                        to_lo += w * lo / (w_lo + 1.0);
                    }
                    0 => to_lo += w * lo / w_lo,
                    _ if best_lo > 0 => to_lo += w * lo / w_lo,
                    _ => {}
                }
            }
            *out = [0.0; MAX_SEATS];
            out[r] = to_r / total;
            for i in (0..n).filter(|&i| self.st.live[i] && i != r) {
                if keys[i].hi == best_hi {
                    out[i] += to_hi / total;
                }
                if best_lo > 0 && keys[i].lo == best_lo {
                    out[i] += to_lo / total;
                }
            }
        };
        vector(&counts, f64::from(candidates.len()), mean);
        // The card dealt is one outcome with weight one: the same shares as a showdown now.
        vector(&one, 1.0, actual);
        None
    }
}

/// Deuce-to-seven: the seat receiving a card, for the keys of its holding with one more card of
/// a given rank that completes no flush (such a key depends on the rank only): a no-pair result is
/// one lookup by rank mask, a paired one comes from the rank counts, and a paired one against a
/// no-pair best of the others (`pair_loses`) needs no key at all (every paired key is below every
/// no-pair key). The same outcomes as [`value::d27_key`] of the holding with the card.
struct D27Receiver {
    held: CardSet,
    ranks: u16,
    groups: [u16; 4],
    paired: bool,
    /// At most four cards held (always, when a card is dealt).
    room: bool,
    pair_loses: bool,
    a5: bool,
    no_pair: &'static [u32; 8192],
}

/// One bit per suit lane: `plain >> rank & LANES` are the cards of `rank`.
const LANES: u64 = 0x0001_0001_0001_0001;

/// How many lanes of `lanes` (bits at 0, 16, 32, 48 only) are set: summed into the top lane by a
/// multiplication (`count_ones` is no single instruction on the baseline x86-64 target).
#[inline]
fn lane_count(lanes: u64) -> u32 {
    (lanes.wrapping_mul(LANES) >> 48) as u32
}

impl D27Receiver {
    #[inline]
    fn new(held: CardSet, len: u32, a5: bool, pair_loses: bool) -> D27Receiver {
        let groups = value::rank_groups(held);
        D27Receiver {
            held,
            ranks: groups[0],
            groups,
            // Some rank held twice.
            paired: groups[1] != 0,
            room: len < 5,
            pair_loses,
            a5,
            no_pair: value::d27_no_pair_keys(a5),
        }
    }

    /// The key with `x` (no flush card) added; 0 for a pair that loses to the others' best.
    #[inline]
    fn key(&self, x: Card) -> u32 {
        self.exact_key(x).unwrap_or(0)
    }

    /// The key with `x` (no flush card) added, `value::d27_key` of the holding with it; `None`
    /// for a pair that loses to the others' best (not evaluated).
    #[inline]
    fn exact_key(&self, x: Card) -> Option<u32> {
        let rank = x.rank() as u32;
        let bit = 1u16 << rank;
        let pair = self.paired || self.ranks & bit != 0;
        if self.room && !pair {
            Some(self.no_pair[usize::from(self.ranks | bit)])
        } else if self.pair_loses && pair {
            None
        } else if self.room {
            let [h1, h2, h3, h4] = self.groups;
            Some(value::d27_paired_key([
                h1 | bit,
                h2 | (h1 & bit),
                h3 | (h2 & bit),
                h4 | (h3 & bit),
            ]))
        } else {
            let mut set = self.held;
            set.insert(x);
            Some(value::d27_key(set, self.a5))
        }
    }

    /// How many of the `total` cards `plain` (none completing a flush) give a key worse than,
    /// equal to and better than `best_hi`.
    #[inline]
    fn counts(&self, plain: u64, total: u32, best_hi: u32) -> [u32; 3] {
        if self.paired && self.pair_loses {
            return [total, 0, 0];
        }
        let present = ((plain | plain >> 16 | plain >> 32 | plain >> 48) & 0x1fff) as u16;
        let (mut equal, mut better) = (0u32, 0u32);
        let mut add = |key: u32, lanes: u64| {
            let n = lane_count(lanes);
            better += n * u32::from(key > best_hi);
            equal += n * u32::from(key == best_hi);
        };
        if !self.room {
            let mut m = present;
            while m != 0 {
                let rank = m.trailing_zeros();
                m &= m - 1;
                let lanes = plain >> rank & LANES;
                let suit = (lanes.trailing_zeros() / 16) as u8;
                add(
                    self.key(Card::new(
                        Rank::from_index(rank as u8),
                        Suit::from_index(suit),
                    )),
                    lanes,
                );
            }
            return [total - equal - better, equal, better];
        }
        let pair_ranks = if self.paired {
            present
        } else {
            // No pair yet: a new rank keeps none.
            let mut m = present & !self.ranks;
            while m != 0 {
                let rank = m.trailing_zeros();
                m &= m - 1;
                add(
                    self.no_pair[usize::from(self.ranks | 1 << rank)],
                    plain >> rank & LANES,
                );
            }
            present & self.ranks
        };
        if !self.pair_loses {
            let [h1, h2, h3, h4] = self.groups;
            let mut m = pair_ranks;
            while m != 0 {
                let rank = m.trailing_zeros();
                m &= m - 1;
                let bit = 1u16 << rank;
                add(
                    value::d27_paired_key([
                        h1 | bit,
                        h2 | (h1 & bit),
                        h3 | (h2 & bit),
                        h4 | (h3 & bit),
                    ]),
                    plain >> rank & LANES,
                );
            }
        }
        // The rest: worse (a losing pair among them).
        [total - equal - better, equal, better]
    }
}

/// An [`Adjuster`] with its buffers, for the callers that adjust hand after hand (a match's
/// recorder, a tournament unit): one hand's adjusted results from its events and nets.
pub struct HandAdjuster {
    adjuster: Adjuster,
    /// The secret seed of the estimator's sampler (see [`Adjuster::seed_hand`]).
    side_seed: u64,
    corrections: Vec<f64>,
    nets: Vec<i64>,
    milli: Vec<i64>,
}

impl HandAdjuster {
    /// For hands of `seats` seats, the sampler seeded from `side_seed` and each hand's deal.
    pub fn new(adjuster: Adjuster, side_seed: u64, seats: usize) -> HandAdjuster {
        HandAdjuster {
            adjuster,
            side_seed,
            corrections: vec![0.0; seats],
            nets: vec![0; seats],
            milli: vec![0; seats],
        }
    }

    /// The adjusted results of the hand of deal `deal` ([`adjusted_milli`]), by seat.
    pub fn hand(&mut self, deal: u64, events: &[Event], net: &[(Seat, i64)]) -> &[i64] {
        let n = self.nets.len();
        self.adjuster.seed_hand(self.side_seed, deal);
        self.adjuster.hand(n, events, &mut self.corrections);
        for (v, (_, x)) in self.nets.iter_mut().zip(net) {
            *v = *x;
        }
        adjusted_milli(&self.nets, &self.corrections, &mut self.milli);
        &self.milli
    }

    /// The last hand's adjusted results, by seat.
    pub fn last(&self) -> &[i64] {
        &self.milli
    }
}

/// Adjusted results in thousandths of a chip, `round(1000 · (net_i − corrections_i))` (integers, so
/// that sums merge exactly in any order), with the seat of the largest correction absorbing the
/// rounding: the results still sum to `1000 · Σ net` (zero, chips being conserved).
pub fn adjusted_milli(net: &[i64], corrections: &[f64], out: &mut [i64]) {
    let (mut sum, mut want, mut big) = (0i64, 0i64, 0usize);
    for i in 0..net.len() {
        out[i] = ((net[i] as f64 - corrections[i]) * 1000.0).round() as i64;
        sum += out[i];
        want += net[i] * 1000;
        if corrections[i].abs() > corrections[big].abs() {
            big = i;
        }
    }
    if !net.is_empty() {
        out[big] += want - sum;
    }
}

#[cfg(test)]
mod tests {
    use super::{Model, Variant, MODEL_NAME};

    #[test]
    fn recorded_model_names_map_to_their_models() {
        // Plans made before names were recorded used the strength model in both games.
        assert_eq!(
            Model::by_name(None, Variant::StudHiLo),
            Some(Model::Strength)
        );
        // Plans of the all-in model before the stacks were known keep it.
        assert_eq!(
            Model::by_name(Some(super::LEGACY_MODEL_NAME), Variant::StudHiLo),
            Some(Model::AllIn(super::STUD_SAMPLES))
        );
        assert_eq!(
            Model::by_name(Some(super::LEGACY_MODEL_NAME), Variant::TripleDraw),
            Some(Model::Strength)
        );
        for v in [Variant::StudHiLo, Variant::TripleDraw] {
            assert_eq!(
                Model::by_name(Some(MODEL_NAME), v),
                Some(Model::Stacks(super::STUD_SAMPLES))
            );
        }
        assert_eq!(
            Model::by_name(Some(super::SIZED_MODEL_NAME), Variant::TripleDraw),
            Some(Model::Sized(super::STUD_SAMPLES))
        );
        assert_eq!(Model::by_name(Some("allin99"), Variant::StudHiLo), None);
    }

    #[test]
    fn adjusted_results_keep_the_sum() {
        let mut out = [0i64; 3];
        super::adjusted_milli(&[100, -50, -50], &[10.0004, -5.0004, -5.0], &mut out);
        assert_eq!(out.iter().sum::<i64>(), 0);
        // Exact: 89_999.6, -44_999.6, -45_000; each within a thousandth of a chip of it.
        for (o, x) in out.iter().zip([89_999.6, -44_999.6, -45_000.0]) {
            assert!((*o as f64 - x).abs() <= 1.0, "{out:?}");
        }
    }
}

#[cfg(test)]
mod fast_tests {
    use super::{value, D27Receiver};
    use pitboss_cards::{Card, CardSet, Rank, Suit};

    /// The counts as `mean_fast` made them before [`D27Receiver`]: one key per rank.
    fn reference(held: CardSet, plain: u64, best_hi: u32, a5: bool, pair_loses: bool) -> [u32; 12] {
        let mut counts = [0u32; 12];
        let held_ranks = held.rank_mask();
        let held_paired = held_ranks.count_ones() < held.len();
        for rank in 0..13u8 {
            let lanes = plain >> rank & 0x0001_0001_0001_0001;
            if lanes != 0 {
                let suit = (lanes.trailing_zeros() / 16) as u8;
                let x = Card::new(Rank::from_index(rank), Suit::from_index(suit));
                let mut set = held;
                set.insert(x);
                let hi = if pair_loses && (held_paired || held_ranks >> x.rank() as u32 & 1 == 1) {
                    0
                } else {
                    value::d27_key(set, a5)
                };
                counts[(hi.cmp(&best_hi) as i32 + 1) as usize * 4 + 3] += lanes.count_ones();
            }
        }
        counts
    }

    struct Xs(u64);
    impl Xs {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn holding(&mut self, k: u32, not: CardSet) -> CardSet {
            let mut s = CardSet::EMPTY;
            while s.len() < k {
                let c = Card::from_index((self.next() % 52) as u8);
                if !not.contains(c) {
                    s.insert(c);
                }
            }
            s
        }
    }

    #[test]
    fn d27_counts_by_rank_equal_one_key_per_rank() {
        let mut x = Xs(0x2545_F491_4F6C_DD1D);
        for _ in 0..400_000 {
            let k = (x.next() % 6) as u32;
            let held = x.holding(k, CardSet::EMPTY);
            // The others' best: a real key of 0 to 5 cards, or occasionally any number.
            let other_k = (x.next() % 6) as u32;
            let other = x.holding(other_k, held);
            let a5 = x.next() & 1 == 1;
            let best_hi = match x.next() % 8 {
                0 => (x.next() % (1 << 27)) as u32,
                1 => 0,
                _ => value::d27_key(other, a5),
            };
            // The stub: a random part of the cards not held, without a lane of four suited
            // held cards (the flush lane `mean_fast` evaluates card by card).
            let b = held.bits();
            let lane =
                (0..4).find(|l| held.len() == 4 && (b >> (16 * l) & 0x1fff).count_ones() == 4);
            let lane_mask = lane.map_or(0, |l| 0x1fffu64 << (16 * l));
            let plain = match x.next() % 3 {
                0 => CardSet::FULL.bits(),
                _ => x.next() | x.next(),
            } & CardSet::FULL.bits()
                & !b
                & !lane_mask;
            for pair_loses in [best_hi >= value::D27_NO_PAIR, false] {
                if !pair_loses && best_hi >= value::D27_NO_PAIR && x.next() & 3 != 0 {
                    continue;
                }
                let recv = D27Receiver::new(held, held.len(), a5, pair_loses);
                let want = reference(held, plain, best_hi, a5, pair_loses);
                let c = Card::from_index((x.next() % 52) as u8);
                if !held.contains(c) && !CardSet::from_bits(lane_mask).contains(c) {
                    // The key the seat's cache then keeps: exactly `d27_key` of the new cards.
                    let mut set = held;
                    set.insert(c);
                    if let Some(k) = recv.exact_key(c) {
                        assert_eq!(k, value::d27_key(set, a5), "{held:?} {c:?} {a5}");
                    } else {
                        assert!(pair_loses && set.rank_mask().count_ones() < set.len());
                    }
                }
                if CardSet::from_bits(plain).contains(c) {
                    let mut one = CardSet::EMPTY;
                    one.insert(c);
                    let r = reference(held, one.bits(), best_hi, a5, pair_loses);
                    let class = (recv.key(c).cmp(&best_hi) as i32 + 1) as usize;
                    assert_eq!(r[class * 4 + 3], 1, "{held:?} {c:?} {best_hi} {a5}");
                }
                assert_eq!(
                    recv.counts(plain, plain.count_ones(), best_hi),
                    [want[3], want[7], want[11]],
                    "{held:?} {plain:x} {best_hi} {a5} {pair_loses}"
                );
            }
        }
    }
}
