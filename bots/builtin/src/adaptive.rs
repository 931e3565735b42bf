//! `adaptive`: `equity` with its betting knobs moved per opponent from what it has seen them do.

use pitboss_cards::eval::{ace_to_five_8, deuce_to_seven, high, HighClass};
use pitboss_cards::CardSet;
use pitboss_protocol::{ActRequest, Action, Bot, Event, HandEnd, HandStart, MatchStart};

use crate::eqcore::{Core, Knobs};
use crate::util;

/// Seats are tracked relative to this bot's seat: the arena rotates bots cyclically over the seats,
/// so an offset keeps naming the same opponent across hands.
const MAX_SEATS: usize = 8;

/// Above this share of weak hands among those an opponent bet into showdowns, its bets are not
/// read as strength by their size (the prior is 0.2; a maniac's is most of them).
const DOUBT: f64 = 0.35;

/// Below this share of weak hands among those an opponent bet into showdowns (the prior), its bets
/// in stud narrow its range even multiway, where `equity` reads a bettor as random since at a full
/// table it is often a maniac feeding the pot.
const TRUST: f64 = 0.2;

/// Counts of one opponent's observed behaviour over the match. Each rate starts from the table's
/// pooled rate (itself starting from a fixed prior) worth `weight` observations: a few hands do not
/// swing the knobs, and at a full table, where each opponent is seen acting only a few times, what
/// the whole table does stands in for what one opponent has not yet shown.
#[derive(Clone, Copy, Debug, Default)]
struct Tendency {
    /// Bets and raises faced, and folds to them, in the early and the late rounds (see [`late`]).
    faced: [f64; 2],
    folded: [f64; 2],
    acts: f64,
    aggressive: f64,
    bet_shows: f64,
    weak_bet_shows: f64,
    pat_shows: f64,
    weak_pat_shows: f64,
}

fn rate(hits: f64, n: f64, prior: f64, weight: f64) -> f64 {
    (hits + prior * weight) / (n + weight)
}

/// A rate of one opponent (`hits` in `n`) shrunk towards that of the rest of the table (`all_hits`
/// in `all_n` with this opponent's own counts taken out, so that they are not counted twice), and
/// that towards `prior`. Heads-up the rest of the table is empty and this is `rate` from `prior`.
fn pooled(hits: f64, n: f64, all_hits: f64, all_n: f64, prior: f64, weight: f64) -> f64 {
    let rest = rate(all_hits - hits, all_n - n, prior, weight);
    rate(hits, n, rest, weight)
}

/// Whether a betting round is a late one for the folding read, which is kept apart for early and
/// late rounds and used for the kind of round being played. In stud the late rounds are fifth
/// street on (where fixed-limit bets double): on third and fourth street most players fold most
/// starting hands to any bet, which says little about how they meet a bluff or a thin value bet
/// later, and the other way round. In triple draw every round is one kind: bluffs and semi-bluffs
/// with draws to come are made in all of them, and a first-round fold there is not much likelier
/// than a later one.
fn late(stud: bool, round: u8) -> bool {
    !stud || round >= 2
}

impl Tendency {
    /// The sum of several opponents' counts (the table's pooled read).
    fn add(mut self, o: &Tendency) -> Tendency {
        for k in 0..2 {
            self.faced[k] += o.faced[k];
            self.folded[k] += o.folded[k];
        }
        self.acts += o.acts;
        self.aggressive += o.aggressive;
        self.bet_shows += o.bet_shows;
        self.weak_bet_shows += o.weak_bet_shows;
        self.pat_shows += o.pat_shows;
        self.weak_pat_shows += o.weak_pat_shows;
        self
    }
    /// How often it folds when it faces a bet or raise in a round like this one (early or late,
    /// see [`late`]).
    fn fold_to_bet(&self, table: &Tendency, late: bool) -> f64 {
        let k = usize::from(late);
        let (f, n) = (table.folded[k], table.faced[k]);
        pooled(self.folded[k], self.faced[k], f, n, 0.35, 10.0)
    }
    /// Share of its voluntary actions that are bets or raises.
    fn aggression(&self, table: &Tendency) -> f64 {
        pooled(
            self.aggressive,
            self.acts,
            table.aggressive,
            table.acts,
            0.25,
            10.0,
        )
    }
    /// Share of its hands shown after betting the last round that were weak.
    fn bluffs(&self, table: &Tendency) -> f64 {
        let (w, n) = (table.weak_bet_shows, table.bet_shows);
        pooled(self.weak_bet_shows, self.bet_shows, w, n, 0.2, 6.0)
    }
    /// Share of its pat hands shown that were not a made ten or better.
    fn weak_pats(&self, table: &Tendency) -> f64 {
        let (w, n) = (table.weak_pat_shows, table.pat_shows);
        pooled(self.weak_pat_shows, self.pat_shows, w, n, 0.1, 4.0)
    }
}

/// Reads of single opponents for the equity engine, as bit masks by seat (see `Core::evaluate`).
#[derive(Clone, Copy, Debug, Default)]
struct Reads {
    /// Pat hands mostly junk: draw counts mean nothing.
    random: u64,
    /// Bets often weak at showdowns: not read by their size, nor as strength in stud.
    doubted: u64,
    /// Bets that held up at showdowns: in stud they narrow the range even multiway.
    trusted: u64,
}

/// `adaptive` starts from `equity` — the same equity engine, draws and betting rule — and moves the
/// rule's knobs per opponent from what it has observed over the match: how often the opponent folds
/// to a bet or raise, how much of its play is betting and raising, how often the hands it bet into
/// a showdown were weak (bluffs), and in triple draw how often its pat hands were not made. Against
/// players who fold a lot it bluffs more and needs less to bet; against players who never fold it
/// stops bluffing and bets thinner for value; against aggressive bluffers it calls lighter, against
/// players who only bet good hands it folds more; and an opponent whose pat hands are mostly junk
/// is treated as holding random cards, and one whose bets were often weak at showdowns has its bets
/// counted rather than read by their size. With several opponents a value bet is sized to the one
/// who folds least, a bluff to the chance that all of them fold, and the other knobs are averaged
/// over those still in. All counts start from priors, so early hands move it little. In stud the
/// folding read is kept apart for third and fourth street, where most starting hands are folded to
/// any bet, and for fifth street on, and each is used on its own streets (the late one on every
/// street multiway); each opponent's rates start from the rest of the table's, which at a full
/// table is read long before any one opponent is; and in stud a bettor whose bets held up at
/// showdowns has its range narrowed even multiway. With several opponents in the hand a bet's
/// respect does not follow the bluffing read, which judges a hand bet into a showdown by a
/// heads-up line that a sound player's value bets into several callers fall below.
pub struct AdaptiveBot {
    core: Core,
    seat: usize,
    seats: usize,
    seen: [Tendency; MAX_SEATS],
    /// This hand: per absolute seat, current bet, whether it bet or raised this round, its latest
    /// draw count and its up cards as last seen.
    bet: [u64; MAX_SEATS],
    level: u64,
    raised_round: bool,
    aggr_round: [bool; MAX_SEATS],
    last_draw: [Option<u8>; MAX_SEATS],
    up: [CardSet; MAX_SEATS],
    board: CardSet,
    stud: bool,
    /// Whether this betting round is a late one (see [`late`]).
    late: bool,
}

impl AdaptiveBot {
    pub fn new(seed: u64) -> AdaptiveBot {
        AdaptiveBot {
            core: Core::new(seed),
            seat: 0,
            seats: 2,
            seen: [Tendency::default(); MAX_SEATS],
            bet: [0; MAX_SEATS],
            level: 0,
            raised_round: false,
            aggr_round: [false; MAX_SEATS],
            last_draw: [None; MAX_SEATS],
            up: [CardSet::EMPTY; MAX_SEATS],
            board: CardSet::EMPTY,
            stud: false,
            late: false,
        }
    }

    fn rel(&self, seat: u8) -> usize {
        (usize::from(seat) + self.seats - self.seat) % self.seats.max(1) % MAX_SEATS
    }

    /// Learns from the events (every seat's public actions, draws and shown hands).
    fn observe(&mut self, events: &[Event]) {
        for e in events {
            match *e {
                Event::Round { round } => {
                    self.late = late(self.stud, round);
                    self.bet = [0; MAX_SEATS];
                    self.level = 0;
                    self.raised_round = false;
                    self.aggr_round = [false; MAX_SEATS];
                }
                Event::Blind { seat, amount, .. } | Event::BringIn { seat, amount, .. } => {
                    let s = usize::from(seat) % MAX_SEATS;
                    self.bet[s] += amount;
                    self.level = self.level.max(self.bet[s]);
                }
                Event::Call { seat, amount, .. } => {
                    let s = usize::from(seat) % MAX_SEATS;
                    self.bet[s] += amount;
                    let r = self.rel(seat);
                    self.seen[r].acts += 1.0;
                    if self.raised_round {
                        self.seen[r].faced[usize::from(self.late)] += 1.0;
                    }
                }
                Event::Check { seat } => self.seen[self.rel(seat)].acts += 1.0,
                Event::Fold { seat } => {
                    let r = self.rel(seat);
                    self.seen[r].acts += 1.0;
                    if self.raised_round {
                        self.seen[r].faced[usize::from(self.late)] += 1.0;
                        self.seen[r].folded[usize::from(self.late)] += 1.0;
                    }
                }
                Event::Raise { seat, to, .. } => {
                    let s = usize::from(seat) % MAX_SEATS;
                    let r = self.rel(seat);
                    self.seen[r].acts += 1.0;
                    self.seen[r].aggressive += 1.0;
                    if self.raised_round {
                        self.seen[r].faced[usize::from(self.late)] += 1.0;
                    }
                    self.bet[s] = to;
                    self.level = self.level.max(to);
                    self.raised_round = true;
                    self.aggr_round[s] = true;
                }
                Event::Discard { seat, count, .. } => {
                    self.last_draw[usize::from(seat) % MAX_SEATS] = Some(count);
                }
                Event::Deal {
                    seat,
                    card: Some(c),
                    up: true,
                } => {
                    self.up[usize::from(seat) % MAX_SEATS].insert(c);
                }
                Event::Community { card } => {
                    self.board.insert(card);
                }
                Event::Show { seat, cards } => self.showdown(seat, cards),
                _ => {}
            }
        }
    }

    /// A shown hand: was it a bet into the showdown with a weak hand, a junk pat hand?
    fn showdown(&mut self, seat: u8, cards: CardSet) {
        if usize::from(seat) == self.seat {
            return;
        }
        let s = usize::from(seat) % MAX_SEATS;
        let all = cards.union(self.up[s]).union(self.board);
        let weak = if self.stud {
            all.len() < 5
                || (high(all).class() < HighClass::TwoPair && ace_to_five_8(all).is_none())
        } else {
            all.len() != 5
                || !(deuce_to_seven(all, false).class() == HighClass::HighCard
                    && all.rank_mask() < 1 << 9)
        };
        let r = self.rel(seat);
        if self.aggr_round[s] {
            self.seen[r].bet_shows += 1.0;
            self.seen[r].weak_bet_shows += f64::from(u8::from(weak));
        }
        if !self.stud && self.last_draw[s] == Some(0) {
            self.seen[r].pat_shows += 1.0;
            self.seen[r].weak_pat_shows += f64::from(u8::from(weak));
        }
    }

    /// The counts of every opponent at the table added up.
    fn table(&self) -> Tendency {
        self.seen[1..self.seats.max(1)]
            .iter()
            .fold(Tendency::default(), |sum, t| sum.add(t))
    }

    /// The knobs against the opponents still in (their tendencies combined) and the reads of
    /// single seats for the equity engine.
    fn knobs(&self, req: &ActRequest) -> (Knobs, Reads) {
        let (mut aggr, mut bluffs, mut n) = (0.0, 0.0, 0.0);
        let mut reads = Reads::default();
        let mut f2b = f64::INFINITY;
        let (mut all_fold, mut prior_all) = (1.0, 1.0);
        let table = self.table();
        // The early-round read only against a single opponent: early folds are mostly junk
        // starting hands given up, and with several opponents the one holding a hand calls, so
        // the product of their rates (which takes them as independent) would overstate a bluff.
        let late = self.late || util::opponents(&req.view).nth(1).is_some();
        for (i, _) in util::opponents(&req.view) {
            let t = &self.seen[self.rel(i as u8)];
            let folds = t.fold_to_bet(&table, late);
            f2b = f2b.min(folds);
            all_fold *= folds;
            prior_all *= 0.35;
            aggr += t.aggression(&table);
            bluffs += t.bluffs(&table);
            n += 1.0;
            if t.weak_pats(&table) > 0.5 {
                reads.random |= 1 << i;
            }
            if t.bluffs(&table) > DOUBT {
                reads.doubted |= 1 << i;
            }
            if t.bluffs(&table) < TRUST {
                reads.trusted |= 1 << i;
            }
        }
        let base = Knobs::for_game(util::is_stud(self.core.stud, req));
        if n == 0.0 {
            return (base, reads);
        }
        // Multiway the showdown read stays at its prior: a hand that was bet into a multiway
        // showdown is judged by a heads-up line (less than two pair and no low in stud, worse
        // than a made ten in triple draw), and a sound player's value bets into several weak
        // callers fall below it, so the read called them bluffs and paid off the player who had
        // raised every third street and then played soundly (seven `x-early1`s in stud8-fl:
        // −56.1 mbb/hand with it, 87.2 without). The price is paid against real multiway
        // bluffers, still beaten by far (five `random`s in 27td-fl: 1906 → 1121). Heads-up
        // nothing changes.
        let aggr = aggr / n;
        let bluffs = if n > 1.0 { 0.2 } else { bluffs / n };
        // Moves from the priors: a folder gets more bluffs and only stronger value bets, a station
        // no bluffs and thinner value bets; a bluffer's or maniac's bets get less respect. The
        // folding read of a value bet is that of the opponent who folds least (whoever calls pays
        // it); of a bluff, how much more often than against the priors everyone folds.
        let knobs = Knobs {
            value: (base.value + 0.3 * (f2b - 0.35)).clamp(0.1, 0.45),
            respect: (base.respect * (1.0 + 4.0 * (0.2 - bluffs) + 2.0 * (0.25 - aggr)))
                .clamp(0.0, 2.0 * base.respect),
            margin: base.margin,
            bluff: (base.bluff + 1.5 * (all_fold - prior_all)).clamp(0.0, 0.6),
            early: base.early,
            overbets: true,
        };
        (knobs, reads)
    }
}

impl Bot for AdaptiveBot {
    fn match_start(&mut self, m: &MatchStart) {
        self.core.match_start(m);
        self.stud = m.game.variant == "stud-hi-lo";
    }

    fn hand_start(&mut self, h: &HandStart) {
        self.core.hand_start();
        self.seat = usize::from(h.seat);
        self.seats = usize::from(h.seats).clamp(1, MAX_SEATS);
        self.last_draw = [None; MAX_SEATS];
        self.up = [CardSet::EMPTY; MAX_SEATS];
        self.board = CardSet::EMPTY;
        self.aggr_round = [false; MAX_SEATS];
        self.late = false;
    }

    fn act(&mut self, req: &ActRequest) -> Action {
        self.core.update(req);
        self.observe(&req.events);
        let (knobs, r) = self.knobs(req);
        let Some((share, keep)) = self.core.evaluate(req, r.random, r.doubted, r.trusted) else {
            return util::passive_or_fold(&req.legal);
        };
        if let Some(max) = req.legal.discard {
            return self.core.discard(&req.view.cards, keep, max);
        }
        self.core.decide(req, share, &knobs)
    }

    fn hand_end(&mut self, h: &HandEnd) {
        self.observe(&h.events);
    }
}
