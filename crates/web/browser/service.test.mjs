// The service's pages in a real browser, against the real `pitboss serve` on an empty data folder
// (the reference bots' ladder starts at once): the leaderboard updates live without a reload, the
// upload form works (log in with a token, upload a renamed copy of bots/python/simple, see the
// version on its page), a bot page shows its crosstable, the hand viewer steps through a stud and
// a triple-draw hand of a match the server played; a screenshot of every page, checked non-blank;
// no page logs an error (a Content-Security-Policy violation is one) or opens a dialog.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { assert, assertEq, newPage, outDir, pngInfo, root, sh, test } from './harness.mjs';

let server = null;

function binary() {
  const target = process.env.CARGO_TARGET_DIR || join(root, 'target');
  const bin = join(target, 'release', 'pitboss');
  if (!process.env.PITBOSS_PREBUILT) sh('cargo', ['build', '--release', '-q', '-p', 'pitboss-cli']);
  assert(existsSync(bin), `no ${bin}`);
  return bin;
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** `pitboss serve` on a fresh folder (once for all the tests), with an account's token. */
async function service() {
  if (server) return server;
  const bin = binary();
  const dir = mkdtempSync(join(outDir, 'service-'));
  const data = join(dir, 'data');
  const out = sh(bin, ['token', 'create', 'browser-tester', '--data', data]);
  // One preset of each game keeps every game's matches coming within seconds on two cores.
  writeFileSync(join(data, 'ladder.toml'), 'presets = ["27td-fl", "stud8-fl"]\n');
  const token = (out.match(/pb_[0-9a-f]{64}/) || [])[0];
  assert(token, `no token in: ${out}`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    bin,
    ['serve', '--data', data, '--listen', `127.0.0.1:${port}`, '--hands-per-match', '200', '--workers', '1'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  process.on('exit', () => child.kill('SIGKILL'));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`pitboss serve exited ${child.exitCode}: ${log}`);
    try {
      const r = await fetch(`${base}/api/status`);
      if (r.ok) break;
    } catch (e) {
      // not listening yet
    }
    if (i > 600) throw new Error(`pitboss serve did not answer within a minute: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  server = { base, token, dir, child };
  return server;
}

async function json(path) {
  const { base } = await service();
  const r = await fetch(base + path);
  assert(r.ok, `${path}: HTTP ${r.status}`);
  return r.json();
}

/** Waits until `cond()` (async) is true, polling; for the server's own progress (matches). */
async function until(what, cond, ms = 120_000) {
  const t0 = Date.now();
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A full-page screenshot, checked: big enough and not one colour. */
async function shoot(p, name) {
  const shot = join(outDir, `service-${name}.png`);
  await p.screenshot({ path: shot, fullPage: true });
  const png = pngInfo(readFileSync(shot));
  assert(png.width >= 800 && png.height >= 300, `${name}: screenshot ${png.width}x${png.height}`);
  assert(png.colours > 10, `${name}: screenshot looks blank (${png.colours} colours)`);
}

function clean(p, name) {
  assertEq(p.problems, [], `${name}: errors in the page`);
  assertEq(p.dialogs, [], `${name}: dialogs`);
}

test('service: the leaderboard updates live without a reload', async () => {
  const { base } = await service();
  await until('a first board', async () => (await json('/api/leaderboard')).generation > 0);
  const p = await newPage();
  try {
    await p.goto(`${base}/`);
    await p.locator('table.leaderboard').first().waitFor();
    // One snapshot of both (the generation is inside the board): read apart, a live update
    // landing between the two reads made the 'new' board the one already seen.
    const [before, table] = await p.evaluate(() => [
      document.getElementById('generation').textContent,
      document.getElementById('board').innerHTML,
    ]);
    await p.evaluate(() => { window.stillTheSamePage = true; });
    // Matches finish every few hundred milliseconds: the board changes, the page follows.
    await p.waitForFunction(
      (g) => document.getElementById('generation').textContent !== g,
      before,
      { timeout: 120_000 },
    );
    assert(await p.evaluate(() => window.stillTheSamePage === true), 'the page was reloaded');
    assert((await p.locator('#board').innerHTML()) !== table, 'the table did not change');
    const rows = await p.locator('table.leaderboard[data-table="overall"] tbody tr').count();
    assert(rows >= 2, `overall table has ${rows} rows`);
    await shoot(p, 'leaderboard');
    clean(p, 'leaderboard');
  } finally {
    await p.context().close();
  }
});

test('service: the upload form logs in, uploads, and the version appears', async () => {
  const { base, token, dir } = await service();
  const folder = join(dir, 'upload-src');
  cpSync(join(root, 'bots', 'python', 'simple'), folder, { recursive: true });
  const manifest = join(folder, 'bot.toml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^name = .*$/m, 'name = "browser-bot"'));
  const archive = join(dir, 'browser-bot.tar.gz');
  sh('tar', ['-czf', archive, '-C', folder, '.']);

  const p = await newPage();
  try {
    await p.goto(`${base}/upload`);
    await p.waitForURL(`${base}/login`);
    await shoot(p, 'login');
    await p.locator('#token').fill(token);
    await Promise.all([p.waitForURL(`${base}/upload`), p.locator('#login button[type=submit]').click()]);
    assertEq(await p.locator('#account').textContent(), 'browser-tester', 'logged in as');
    const cookies = await p.context().cookies();
    const session = cookies.find((c) => c.name === 'pb_session');
    assert(session && session.httpOnly && session.sameSite === 'Strict', 'the session cookie');
    assert(!session.value.includes(token), 'the cookie holds no token');
    await shoot(p, 'upload');
    await p.locator('#bundle').setInputFiles(archive);
    await Promise.all([
      p.waitForURL(`${base}/bots/browser-bot`),
      p.locator('#upload button[type=submit]').click(),
    ]);
    await p.getByText('browser-bot.v1').first().waitFor();
    const state = await p.locator('table.versions tbody tr td').nth(1).textContent();
    assert(['pending', 'checking', 'active', 'failed'].includes(state), `state ${state}`);
    // Its owner sees the log section; the API agrees on the version.
    await p.getByText('Build and check logs').waitFor();
    const api = await json('/api/bots/browser-bot');
    assertEq(api.versions[0].number, 1, 'version number');
    await shoot(p, 'bot-uploaded');
    clean(p, 'upload');
  } finally {
    await p.context().close();
  }
});

test('service: a bot page shows its crosstable', async () => {
  const { base } = await service();
  await until('head-to-head results of random', async () => (await json('/api/bots/random')).crosstable.length > 0);
  const p = await newPage();
  try {
    await p.goto(`${base}/bots/random`);
    await p.locator('table.crosstable tbody tr').first().waitFor();
    const rows = await p.locator('table.crosstable tbody tr').count();
    assert(rows >= 1, 'crosstable rows');
    const head = await p.locator('table.crosstable thead th').allTextContents();
    assert(head.includes('All presets'), `columns: ${head.join(', ')}`);
    const cell = await p.locator('table.crosstable tbody tr td.num').first().textContent();
    assert(/[+-]\d/.test(cell), `a result in the first cell: ${cell}`);
    await p.getByText('Play statistics of random').waitFor();
    await p.locator('svg.history').waitFor();
    await shoot(p, 'bot');
    clean(p, 'bot');
  } finally {
    await p.context().close();
  }
});

/** A finished match of a preset of `game` with a kept history, found through the API. */
async function finishedMatch(game) {
  return until(`a finished ${game} match`, async () => {
    const status = await json('/api/status');
    const last = status.queue.done + status.queue.running + status.queue.queued + status.queue.failed;
    for (let id = 1; id <= last; id++) {
      const m = await json(`/api/matches/${id}`).catch(() => null);
      if (m && m.state === 'done' && m.history && m.preset.startsWith(game)) return m;
    }
    return null;
  });
}

async function walkHand(game) {
  const { base } = await service();
  const m = await finishedMatch(game);
  // The hand with the most steps among the first ten.
  let best = null;
  for (let n = 1; n <= 10; n++) {
    const f = await json(`/api/matches/${m.id}/hands/${n}`).catch(() => null);
    if (f && (!best || f.steps.length > best.data.steps.length)) best = { n, data: f };
  }
  assert(best, `no hand of match ${m.id}`);
  const { n, data } = best;
  assertEq(data.header.game, game, 'the game');
  const steps = data.steps.length;

  const p = await newPage();
  try {
    await p.goto(`${base}/matches/${m.id}`);
    await p.locator(`a[href="/matches/${m.id}/hands/${n}"]`).first().waitFor();
    await shoot(p, `match-${game}`);
    clean(p, `match ${game}`);
    await p.goto(`${base}/matches/${m.id}/hands/${n}`);
    const show = async (i) => {
      // Null-safe: the viewer builds its page once the frames have arrived (viewer.test.mjs).
      await p.waitForFunction(
        (want) => document.getElementById('step-counter')?.textContent === want,
        `step ${i + 1} / ${steps}`,
      );
      assertEq(await p.locator('#street').textContent(), data.steps[i].street, `street at ${i + 1}`);
      assertEq(await p.locator('#action').textContent(), data.steps[i].text, `action at ${i + 1}`);
    };
    await show(0);
    await p.getByRole('button', { name: 'next' }).click();
    await show(1);
    for (let i = 2; i < steps; i++) {
      await p.keyboard.press('ArrowRight');
      await show(i);
    }
    assertEq(data.steps[steps - 1].street, 'result', 'the last step');
    assertEq(await p.locator('.seat .cards .card.back').count(), 0, 'every card shown at the end');
    await shoot(p, `viewer-${game}`);
    await p.keyboard.press('Home');
    await show(0);
    clean(p, `viewer ${game}`);
  } finally {
    await p.context().close();
  }
}

test('service: the hand viewer steps through a stud hand', () => walkHand('stud8'));
test('service: the hand viewer steps through a triple-draw hand', () => walkHand('27td'));

test('service: the operator page', async () => {
  const { base } = await service();
  const p = await newPage();
  try {
    await p.goto(`${base}/operator`);
    await p.locator('#hands-per-second').waitFor();
    await shoot(p, 'operator');
    clean(p, 'operator');
  } finally {
    await p.context().close();
  }
});
