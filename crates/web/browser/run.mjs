// Runs the browser tests: every `*.test.mjs` in this folder (or the files named on the command
// line), each registering tests with harness.mjs's `test`. `--filter TEXT` keeps the tests whose
// name contains TEXT. Prints `ok` / `FAIL` per test and `N passed, N failed`; exits 1 on a failure.

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closeBrowser, here, run } from './harness.mjs';

const args = process.argv.slice(2);
let filter = '';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--filter') filter = args[++i] || '';
  else files.push(resolve(args[i]));
}
if (files.length === 0) {
  for (const f of readdirSync(here).sort()) if (f.endsWith('.test.mjs')) files.push(join(here, f));
}

let code = 0;
try {
  for (const f of files) await import(pathToFileURL(f).href);
  const [passed, failed] = await run(filter);
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0 || passed === 0) code = 1;
} catch (e) {
  console.log(`FAIL setup: ${e && e.stack ? e.stack : e}`);
  code = 1;
} finally {
  await closeBrowser().catch(() => {});
}
process.exit(code);
