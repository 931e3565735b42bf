// Pitboss hand viewer: replays a hand step by step from the frames that pitboss-phh's
// `frames` module produces (one full snapshot per step, so any step can be shown directly).
//
// The page holds `<div id="viewer" data-src="URL"></div>` (the frames are fetched) or an inline
// `<script type="application/json" id="hand-data">` (read from the page). Every string from the
// data is inserted with textContent: player names are chosen by strangers.
//
// Keys: ArrowLeft / ArrowRight step, Home / End jump. Buttons carry aria-labels
// first / previous / next / last. Stable hooks for tests: #step-counter, #street, #action, #pot,
// .seat[data-seat=N], .card (data-card="7h" when the card is known).
(function () {
  'use strict';

  var SUITS = { c: '\u2663', d: '\u2666', h: '\u2665', s: '\u2660' };
  var SUIT_NAMES = { c: 'clubs', d: 'diamonds', h: 'hearts', s: 'spades' };

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function chips(n) {
    return typeof n === 'number' ? n.toLocaleString('en-US') : '';
  }

  // A card element: face with rank and suit symbol, or a back for a card the audience may not see.
  function cardEl(card, up, isNew, showUpDown) {
    var e = el('span', 'card');
    if (typeof card === 'string' && card.length === 2) {
      var rank = card.charAt(0) === 'T' ? '10' : card.charAt(0);
      var suit = card.charAt(1);
      e.classList.add('suit-' + suit);
      e.dataset.card = card;
      e.appendChild(el('span', 'rank', rank));
      e.appendChild(el('span', 'suit', SUITS[suit] || suit));
      e.title = rank + ' of ' + (SUIT_NAMES[suit] || suit);
    } else {
      e.classList.add('back');
      e.title = 'hidden card';
    }
    if (showUpDown) {
      e.classList.add(up ? 'up' : 'down');
      e.title += up ? ' (face up)' : ' (face down)';
    }
    if (isNew) e.classList.add('new');
    return e;
  }

  function Viewer(root, data) {
    this.root = root;
    this.data = data;
    this.steps = (data && Array.isArray(data.steps)) ? data.steps : [];
    this.index = 0;
    this.build();
    this.show(0);
  }

  Viewer.prototype.build = function () {
    var h = this.data.header || {};
    var root = this.root;
    while (root.firstChild) root.removeChild(root.firstChild);
    root.classList.add('hand-viewer');
    root.tabIndex = root.tabIndex >= 0 ? root.tabIndex : 0;

    var head = el('div', 'hv-header');
    head.appendChild(el('span', 'hv-title', h.title || h.game || 'hand'));
    var bits = [];
    if (h.structure) bits.push(h.structure);
    var st = h.stakes || {};
    if (st.small_blind || st.big_blind) bits.push('blinds ' + chips(st.small_blind) + '/' + chips(st.big_blind));
    if (st.ante) bits.push('ante ' + chips(st.ante));
    if (st.bring_in) bits.push('bring-in ' + chips(st.bring_in));
    if (st.small_bet) bits.push('bets ' + chips(st.small_bet) + '/' + chips(st.big_bet));
    if (h.hand !== undefined && h.hand !== null) bits.push('hand ' + h.hand);
    head.appendChild(el('span', 'hv-stakes', bits.join(' \u00b7 ')));
    if (h.verified === false) {
      head.appendChild(el('div', 'hv-warning', 'not verified: ' + (h.problem || 'unknown problem')));
    }
    if (h.placeholders) {
      head.appendChild(el('div', 'hv-warning', h.placeholders + ' unknown card(s) are shown as stand-ins'));
    }
    root.appendChild(head);

    var status = el('div', 'hv-status');
    var street = el('span', 'hv-street');
    street.id = 'street';
    var pot = el('span', 'hv-pot');
    pot.appendChild(el('span', 'hv-label', 'pot '));
    this.potEl = el('span', null);
    this.potEl.id = 'pot';
    pot.appendChild(this.potEl);
    var counter = el('span', 'hv-counter');
    counter.id = 'step-counter';
    counter.setAttribute('aria-live', 'polite');
    status.appendChild(street);
    status.appendChild(pot);
    status.appendChild(counter);
    root.appendChild(status);
    this.streetEl = street;
    this.counterEl = counter;

    var action = el('div', 'hv-action');
    action.id = 'action';
    root.appendChild(action);
    this.actionEl = action;

    this.communityEl = el('div', 'hv-community');
    root.appendChild(this.communityEl);

    var table = el('div', 'hv-seats');
    var players = h.players || [];
    this.seatEls = [];
    for (var i = 0; i < players.length; i++) {
      var p = players[i];
      var s = el('div', 'seat');
      s.dataset.seat = String(p.seat);
      var top = el('div', 'seat-top');
      top.appendChild(el('span', 'seat-label', p.label));
      top.appendChild(el('span', 'seat-name', p.name === p.label ? '' : p.name));
      if (h.button !== null && h.button !== undefined && h.button === p.seat) {
        var b = el('span', 'dealer', 'D');
        b.title = 'button';
        top.appendChild(b);
      }
      s.appendChild(top);
      var money = el('div', 'seat-money');
      money.appendChild(el('span', 'hv-label', 'stack '));
      var stack = el('span', 'stack');
      money.appendChild(stack);
      money.appendChild(el('span', 'hv-label', ' bet '));
      var bet = el('span', 'bet');
      money.appendChild(bet);
      s.appendChild(money);
      var badges = el('div', 'seat-badges');
      s.appendChild(badges);
      var cards = el('div', 'cards');
      s.appendChild(cards);
      var discards = el('div', 'discards');
      s.appendChild(discards);
      var made = el('div', 'seat-result');
      s.appendChild(made);
      table.appendChild(s);
      this.seatEls[p.seat] = { root: s, stack: stack, bet: bet, badges: badges, cards: cards, discards: discards, made: made };
    }
    root.appendChild(table);

    var controls = el('div', 'hv-controls');
    var self = this;
    var defs = [
      ['first', '|\u25c0', function () { self.show(0); }],
      ['previous', '\u25c0', function () { self.show(self.index - 1); }],
      ['next', '\u25b6', function () { self.show(self.index + 1); }],
      ['last', '\u25b6|', function () { self.show(self.steps.length - 1); }]
    ];
    this.buttons = {};
    defs.forEach(function (d) {
      var b = el('button', 'hv-' + d[0], d[1]);
      b.type = 'button';
      b.setAttribute('aria-label', d[0]);
      b.title = d[0];
      b.addEventListener('click', d[2]);
      controls.appendChild(b);
      self.buttons[d[0]] = b;
    });
    root.appendChild(controls);

    this.resultEl = el('table', 'hv-result');
    this.resultEl.id = 'result';
    root.appendChild(this.resultEl);
  };

  Viewer.prototype.show = function (i) {
    var n = this.steps.length;
    if (n === 0) {
      this.counterEl.textContent = 'no steps';
      return;
    }
    i = Math.max(0, Math.min(n - 1, i | 0));
    this.index = i;
    var step = this.steps[i] || {};
    var stud = (this.data.header || {}).game === 'stud8';
    this.counterEl.textContent = 'step ' + (i + 1) + ' / ' + n;
    this.streetEl.textContent = step.street || '';
    this.actionEl.textContent = step.text || '';
    this.potEl.textContent = chips(step.pot);
    this.root.dataset.step = String(i + 1);

    while (this.communityEl.firstChild) this.communityEl.removeChild(this.communityEl.firstChild);
    if (step.community) {
      this.communityEl.appendChild(el('span', 'hv-label', 'community card '));
      this.communityEl.appendChild(cardEl(step.community, true, false, false));
    }

    var seats = step.seats || [];
    for (var k = 0; k < seats.length; k++) {
      var sv = seats[k];
      var ui = this.seatEls[sv.seat];
      if (!ui) continue;
      ui.stack.textContent = chips(sv.stack);
      ui.bet.textContent = chips(sv.bet);
      ui.root.classList.toggle('folded', !!sv.folded);
      ui.root.classList.toggle('all-in', !!sv.all_in);
      ui.root.classList.toggle('actor', step.actor === sv.seat);
      ui.root.dataset.stack = String(sv.stack);
      ui.badges.textContent = '';
      if (sv.folded) ui.badges.appendChild(el('span', 'badge badge-folded', 'folded'));
      if (sv.all_in) ui.badges.appendChild(el('span', 'badge badge-all-in', 'all-in'));
      if (sv.shown) ui.badges.appendChild(el('span', 'badge badge-shown', 'shown'));
      ui.cards.textContent = '';
      (sv.cards || []).forEach(function (c) {
        ui.cards.appendChild(cardEl(c.card, !!c.up, !!c.new, stud));
      });
      ui.discards.textContent = '';
      (sv.discards || []).forEach(function (d) {
        var row = el('div', 'discard');
        row.appendChild(el('span', 'hv-label', 'draw ' + d.draw + ': '));
        if (!d.cards || d.cards.length === 0) row.appendChild(el('span', 'pat', 'stood pat'));
        (d.cards || []).forEach(function (c) { row.appendChild(cardEl(c, false, false, false)); });
        ui.discards.appendChild(row);
      });
      ui.made.textContent = '';
    }
    this.renderResult(step.result);

    this.buttons.first.disabled = i === 0;
    this.buttons.previous.disabled = i === 0;
    this.buttons.next.disabled = i === n - 1;
    this.buttons.last.disabled = i === n - 1;
  };

  Viewer.prototype.renderResult = function (result) {
    var t = this.resultEl;
    t.textContent = '';
    t.hidden = !result;
    if (!result) return;
    var players = {};
    ((this.data.header || {}).players || []).forEach(function (p) { players[p.seat] = p; });
    var head = el('tr');
    ['player', 'hand', 'won', 'net', 'stack'].forEach(function (c) { head.appendChild(el('th', null, c)); });
    t.appendChild(head);
    var self = this;
    result.forEach(function (r) {
      var p = players[r.seat] || {};
      var tr = el('tr', r.won > 0 ? 'winner' : null);
      tr.dataset.seat = String(r.seat);
      tr.appendChild(el('td', null, p.name && p.name !== p.label ? p.label + ' ' + p.name : (p.label || '')));
      var hand = el('td', 'made');
      (r.made || []).forEach(function (m) {
        var line = el('div', 'made-' + m.kind);
        line.appendChild(el('span', 'hv-label', m.kind + ' '));
        (m.cards || []).forEach(function (c) { line.appendChild(cardEl(c, true, false, false)); });
        line.appendChild(el('span', 'made-name', ' ' + m.name));
        hand.appendChild(line);
      });
      tr.appendChild(hand);
      tr.appendChild(el('td', 'won', chips(r.won)));
      tr.appendChild(el('td', 'net ' + (r.net > 0 ? 'plus' : r.net < 0 ? 'minus' : ''), (r.net > 0 ? '+' : '') + chips(r.net)));
      tr.appendChild(el('td', 'final', chips(r.finishing_stack)));
      t.appendChild(tr);
      var ui = self.seatEls[r.seat];
      if (ui && r.won > 0) ui.made.appendChild(el('span', 'badge badge-won', 'wins ' + chips(r.won)));
    });
  };

  Viewer.prototype.key = function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName || ''))) return;
    var to = null;
    if (ev.key === 'ArrowLeft') to = this.index - 1;
    else if (ev.key === 'ArrowRight') to = this.index + 1;
    else if (ev.key === 'Home') to = 0;
    else if (ev.key === 'End') to = this.steps.length - 1;
    if (to === null) return;
    ev.preventDefault();
    this.show(to);
  };

  function fail(root, why) {
    root.textContent = '';
    root.appendChild(el('div', 'hv-error', 'cannot show this hand: ' + why));
  }

  function mount(root, data) {
    if (!data || !data.header || !Array.isArray(data.steps)) {
      fail(root, 'the data is not a hand');
      return null;
    }
    var v = new Viewer(root, data);
    root.pitbossViewer = v;
    // `#step=N` in the address opens the hand at step N (1-based), for links to a moment.
    var m = /(?:^#|&)step=(\d+)/.exec(window.location.hash || '');
    if (m) v.show(parseInt(m[1], 10) - 1);
    return v;
  }

  function inlineData(root) {
    var id = root.dataset.dataId || 'hand-data';
    var s = document.getElementById(id);
    if (!s) return null;
    return JSON.parse(s.textContent);
  }

  function start() {
    var roots = document.querySelectorAll('#viewer, .hand-viewer-root');
    var mounted = [];
    Array.prototype.forEach.call(roots, function (root) {
      var src = root.dataset.src;
      if (src) {
        root.textContent = 'loading\u2026';
        fetch(src, { credentials: 'same-origin' })
          .then(function (r) {
            if (!r.ok) throw new Error('HTTP ' + r.status);
            return r.json();
          })
          .then(function (d) { var v = mount(root, d); if (v) mounted.push(v); })
          .catch(function (e) { fail(root, e.message || String(e)); });
      } else {
        try {
          var v = mount(root, inlineData(root));
          if (v) mounted.push(v);
        } catch (e) {
          fail(root, e.message || String(e));
        }
      }
    });
    // One page, one keyboard: the keys drive the first viewer (pages show one hand).
    document.addEventListener('keydown', function (ev) {
      var v = mounted[0];
      if (v) v.key(ev);
    });
  }

  window.PitbossViewer = { mount: mount };
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
