// The browser tests' own tiny harness: `test(name, fn)` registers an async test, `run()` runs them
// one after another and prints `ok NAME` or `FAIL NAME: why`, then `N passed, N failed`. No test
// framework: a test is an async function that throws to fail.
//
// Chromium is Debian's (`/usr/bin/chromium`, or $CHROMIUM), driven by playwright-core, which
// downloads no browser of its own.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';

export const here = dirname(fileURLToPath(import.meta.url));
/** The repository's root (crates/web/browser/../../..). */
export const root = resolve(here, '..', '..', '..');
/** Where screenshots and generated pages go: $BROWSER_OUT, default target/browser. */
export const outDir = resolve(root, process.env.BROWSER_OUT || join('target', 'browser'));
mkdirSync(outDir, { recursive: true });

const tests = [];

/** Registers a test. */
export function test(name, fn) {
  tests.push({ name, fn });
}

/** Runs the registered tests whose names contain `filter`; returns [passed, failed]. */
export async function run(filter = '') {
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    if (filter && !t.name.includes(filter)) continue;
    const t0 = Date.now();
    try {
      await t.fn();
      passed += 1;
      console.log(`ok ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed += 1;
      const why = (e && e.stack) ? e.stack.split('\n').slice(0, 4).join('\n    ') : String(e);
      console.log(`FAIL ${t.name}: ${why}`);
    }
  }
  return [passed, failed];
}

export function assert(cond, message) {
  if (!cond) throw new Error(message || 'assertion failed');
}

export function assertEq(actual, expected, what) {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${what || 'value'}: expected ${b}, got ${a}`);
}

/** The arguments Chromium gets: headless, and what a container without /dev/shm or GPU needs. */
export const chromiumArgs = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

let browserPromise = null;

/** One Chromium for the whole run (launching is the slow part on two cores). */
export async function browser() {
  if (!browserPromise) {
    const { chromium } = await import('playwright-core');
    browserPromise = chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: chromiumArgs,
      headless: true,
      timeout: 120_000,
    });
  }
  return browserPromise;
}

export async function closeBrowser() {
  if (browserPromise) {
    const b = await browserPromise;
    browserPromise = null;
    await b.close();
  }
}

/**
 * A fresh page with generous timeouts for a slow machine. Console errors and uncaught exceptions
 * are collected in `page.problems`; a dialog (alert, confirm) is recorded in `page.dialogs` and
 * dismissed.
 */
export async function newPage(viewport = { width: 1100, height: 900 }) {
  const b = await browser();
  const context = await b.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.problems = [];
  page.dialogs = [];
  page.on('pageerror', (e) => page.problems.push(`exception: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console: ${m.text()}`);
  });
  page.on('dialog', async (d) => {
    page.dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  return page;
}

/** Runs a command in the repository's root; returns its stdout, throws with its stderr. */
export function sh(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || '').slice(0, 2000)}`);
  }
  return r.stdout;
}

/**
 * Reads a PNG: its size, and whether it is blank. The image data is inflated and the rows
 * unfiltered (PNG filters 0-4), then the distinct colours are counted: a blank page has one.
 */
export function pngInfo(buf) {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert(buf.length > 8 && buf.subarray(0, 8).equals(sig), 'not a PNG');
  let off = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  let type = 0;
  const idat = [];
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const kind = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8];
      type = data[9];
    } else if (kind === 'IDAT') {
      idat.push(data);
    } else if (kind === 'IEND') {
      break;
    }
    off += 12 + len;
  }
  assert(depth === 8 && (type === 2 || type === 6), `unexpected PNG format: depth ${depth} type ${type}`);
  const bpp = type === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  assert(raw.length >= height * (stride + 1), 'truncated image data');
  let prev = Buffer.alloc(stride);
  const colours = new Set();
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp] : 0;
      const b = prev[x];
      const c = x >= bpp ? prev[x - bpp] : 0;
      let add = 0;
      if (f === 1) add = a;
      else if (f === 2) add = b;
      else if (f === 3) add = (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = (line[x] + add) & 0xff;
    }
    if (colours.size < 4096 && y % 3 === 0) {
      for (let x = 0; x < stride; x += bpp * 3) {
        colours.add((line[x] << 16) | (line[x + 1] << 8) | line[x + 2]);
      }
    }
    prev = line;
  }
  return { width, height, colours: colours.size };
}
