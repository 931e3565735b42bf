// The hand viewer (crates/web/assets/viewer.js) in a real browser: standalone pages written by
// `cargo run -p pitboss-phh --example viewer_page` for a stud hi/lo hand and a triple-draw hand
// (crates/phh/tests/viewer), stepped through with the buttons and the keys and compared with the
// frames' JSON at every step; a hostile player name; the spectator's hidden cards; the
// `data-src` mode over HTTP; screenshots checked as non-blank PNGs.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assert, assertEq, newPage, outDir, pngInfo, root, sh, test } from './harness.mjs';

const HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">';
const HANDS = {
  stud8: 'crates/phh/tests/viewer/stud8.phh',
  '27td': 'crates/phh/tests/viewer/27td.phh',
};

let built = false;
/** The page generator, built once (scripts/browser_tests.sh builds it beforehand). */
function generator() {
  const target = process.env.CARGO_TARGET_DIR || join(root, 'target');
  const bin = join(target, 'release', 'examples', 'viewer_page');
  if (!built && !process.env.VIEWER_PAGE_PREBUILT) {
    sh('cargo', ['build', '--release', '-q', '-p', 'pitboss-phh', '--example', 'viewer_page']);
    built = true;
  }
  assert(existsSync(bin), `no ${bin}`);
  return bin;
}

/** Writes the page for a hand; returns its file URL and the frames it shows. */
function page(game, extra = [], suffix = '') {
  const args = [HANDS[game], '1', '--player', `2=${HOSTILE}`, ...extra];
  const html = sh(generator(), args);
  const data = JSON.parse(sh(generator(), [...args, '--json']));
  const file = join(outDir, `viewer-${game}${suffix}.html`);
  writeFileSync(file, html);
  return { url: pathToFileURL(file).href, data, html };
}

/** What the page shows now, read from the DOM. */
function snapshot(p) {
  return p.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent;
    const num = (s) => Number(String(s).replace(/[^0-9-]/g, ''));
    return {
      counter: text('step-counter'),
      street: text('street'),
      action: text('action'),
      pot: num(text('pot')),
      seats: Array.from(document.querySelectorAll('.seat[data-seat]')).map((s) => ({
        seat: Number(s.dataset.seat),
        stack: num(s.querySelector('.stack').textContent),
        bet: num(s.querySelector('.bet').textContent),
        folded: s.classList.contains('folded'),
        cards: Array.from(s.querySelectorAll('.cards .card')).map((c) => c.dataset.card || null),
      })),
      result: !document.getElementById('result').hidden,
    };
  });
}

/** The DOM must show step `i` (0-based) of the frames. */
async function expectStep(p, data, i) {
  const n = data.steps.length;
  // Null-safe: with data-src the viewer builds its page only once the frames have arrived, and a
  // predicate that throws ends the wait with an error instead of waiting.
  await p.waitForFunction(
    (want) => document.getElementById('step-counter')?.textContent === want,
    `step ${i + 1} / ${n}`,
  );
  const got = await snapshot(p);
  const want = data.steps[i];
  assertEq(got.street, want.street, `street at step ${i + 1}`);
  assertEq(got.action, want.text, `action at step ${i + 1}`);
  assertEq(got.pot, want.pot, `pot at step ${i + 1}`);
  const start = data.header.players.reduce((a, pl) => a + pl.starting_stack, 0);
  const stacks = got.seats.reduce((a, s) => a + s.stack, 0);
  assertEq(stacks + got.pot, start, `chips on the table at step ${i + 1}`);
  for (const s of want.seats) {
    const g = got.seats.find((x) => x.seat === s.seat);
    assert(g, `seat ${s.seat} missing`);
    assertEq(g.stack, s.stack, `stack of seat ${s.seat} at step ${i + 1}`);
    assertEq(g.bet, s.bet, `bet of seat ${s.seat} at step ${i + 1}`);
    assertEq(g.folded, s.folded, `folded seat ${s.seat} at step ${i + 1}`);
    assertEq(g.cards, s.cards.map((c) => c.card), `cards of seat ${s.seat} at step ${i + 1}`);
  }
  assertEq(got.result, !!want.result, `result shown at step ${i + 1}`);
  return got;
}

function forcedBets(h) {
  const st = h.stakes;
  return h.players.length * st.ante + st.small_blind + st.big_blind;
}

async function walk(game) {
  const { url, data } = page(game);
  const n = data.steps.length;
  assert(n > 10, `${game}: only ${n} steps`);
  const p = await newPage();
  try {
    await p.goto(url);
    const first = await expectStep(p, data, 0);
    assertEq(first.pot, forcedBets(data.header), 'the first step holds the antes and blinds');
    assert(first.seats.every((s) => s.cards.length === 0), 'no card before the deal');
    assert(await p.getByRole('button', { name: 'previous' }).isDisabled(), 'previous is disabled at 1');

    await p.getByRole('button', { name: 'next' }).click();
    const second = await expectStep(p, data, 1);
    assert(second.seats.every((s) => s.cards.length > 0), 'cards after the deal');

    let pots = new Set([first.pot]);
    for (let i = 2; i < n; i++) {
      await p.keyboard.press('ArrowRight');
      pots.add((await expectStep(p, data, i)).pot);
    }
    assert(pots.size > 3, `the pot changed (${[...pots].join(', ')})`);
    await p.keyboard.press('ArrowRight'); // past the end: stays
    const last = await expectStep(p, data, n - 1);
    assertEq(last.street, 'result', 'the last step');
    assertEq(last.pot, 0, 'the pot is awarded');
    assertEq(await p.locator('.seat .cards .card.back').count(), 0, 'hidden cards at the end');
    const shown = await p.locator('.seat .cards .card[data-card]').count();
    const dealt = data.steps[n - 1].seats.reduce((a, s) => a + s.cards.length, 0);
    assertEq(shown, dealt, 'every hole card visible at the end');
    assertEq(await p.locator('#result tr[data-seat]').count(), data.header.players.length, 'result rows');
    assert(await p.getByRole('button', { name: 'next' }).isDisabled(), 'next is disabled at the end');

    const shot = join(outDir, `viewer-${game}.png`);
    await p.screenshot({ path: shot, fullPage: true });
    const png = pngInfo(readFileSync(shot));
    assert(png.width >= 800 && png.height >= 400, `screenshot ${png.width}x${png.height}`);
    assert(png.colours > 20, `screenshot looks blank (${png.colours} colours)`);

    await p.keyboard.press('ArrowLeft');
    await expectStep(p, data, n - 2);
    await p.keyboard.press('Home');
    await expectStep(p, data, 0);
    await p.keyboard.press('End');
    await expectStep(p, data, n - 1);
    await p.getByRole('button', { name: 'first' }).click();
    await expectStep(p, data, 0);
    await p.getByRole('button', { name: 'last' }).click();
    await expectStep(p, data, n - 1);
    await p.getByRole('button', { name: 'previous' }).click();
    await expectStep(p, data, n - 2);

    // The hostile name is text: no dialog, no element made of it, visible as typed.
    const seat = data.header.players.find((pl) => pl.label === 'p2').seat;
    assertEq(
      await p.locator(`.seat[data-seat="${seat}"] .seat-name`).textContent(),
      HOSTILE,
      'the name as typed',
    );
    assert(await p.getByText(HOSTILE).first().isVisible(), 'the name is visible');
    assertEq(await p.locator('#viewer script, #viewer img').count(), 0, 'no element from a name');
    assertEq(p.dialogs, [], 'dialogs');
    assertEq(p.problems, [], 'console errors');
  } finally {
    await p.context().close();
  }
}

test('viewer: stud8 hand, step by step', () => walk('stud8'));
test('viewer: 27td hand, step by step', () => walk('27td'));

test('viewer: a spectator sees backs for down cards', async () => {
  const { url, data } = page('stud8', ['--audience', 'spectator'], '-spectator');
  const p = await newPage();
  try {
    await p.goto(url);
    await expectStep(p, data, 0);
    await p.keyboard.press('ArrowRight');
    await expectStep(p, data, 1);
    // Third street: two backs and one face per seat.
    for (const pl of data.header.players) {
      const cards = p.locator(`.seat[data-seat="${pl.seat}"] .cards .card`);
      assertEq(await cards.count(), 3, 'three cards');
      assertEq(await p.locator(`.seat[data-seat="${pl.seat}"] .cards .card.back`).count(), 2, 'two backs');
      assert(await cards.nth(2).getAttribute('data-card'), 'the up card is named');
    }
    await p.keyboard.press('End');
    await expectStep(p, data, data.steps.length - 1);
    const html = await p.content();
    const hidden = data.steps[1].seats.flatMap((s) => s.cards).filter((c) => c.card === null);
    assert(hidden.length > 0, 'some hidden cards');
    assert(!/data-card="(Kd|Qh)"/.test(html), "bob's folded down cards never reach the page");
    assertEq(p.problems, [], 'console errors');
  } finally {
    await p.context().close();
  }
});

/** Serves the assets and a hand's JSON on 127.0.0.1, as the web crate will. */
async function serve(json) {
  const assets = join(root, 'crates', 'web', 'assets');
  const pageHtml =
    '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/viewer.css">' +
    '</head><body><div id="viewer" data-src="/hand.json"></div>' +
    '<script src="/viewer.js"></script></body></html>';
  const missing = pageHtml.replace('/hand.json', '/nope.json');
  const server = createServer((req, res) => {
    const routes = {
      '/': ['text/html', pageHtml],
      '/missing': ['text/html', missing],
      '/viewer.js': ['text/javascript', readFileSync(join(assets, 'viewer.js'))],
      '/viewer.css': ['text/css', readFileSync(join(assets, 'viewer.css'))],
      '/hand.json': ['application/json', json],
    };
    const r = routes[req.url];
    res.writeHead(r ? 200 : 404, { 'content-type': r ? r[0] : 'text/plain' });
    res.end(r ? r[1] : 'not found');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return server;
}

test('viewer: data-src fetches the frames over HTTP', async () => {
  const { data } = page('27td');
  const server = await serve(JSON.stringify(data));
  const base = `http://127.0.0.1:${server.address().port}`;
  const p = await newPage();
  try {
    await p.goto(`${base}/`);
    await expectStep(p, data, 0);
    await p.keyboard.press('End');
    await expectStep(p, data, data.steps.length - 1);
    await p.goto(`${base}/missing`);
    await p.waitForSelector('.hv-error');
    assert((await p.textContent('.hv-error')).includes('HTTP 404'), 'a missing hand says so');
  } finally {
    await p.context().close();
    server.close();
  }
});
