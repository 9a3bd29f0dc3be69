// Prints "N passed, M failed, K skipped" over the vitest and Playwright JSON reports, and exits non-zero
// when any test or step failed or a suite left no report.
import fs from 'node:fs';
import path from 'node:path';

const [dir, ...failedSteps] = process.argv.slice(2);
const missing = [];
const read = (name) => {
  const file = path.join(dir, name);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  missing.push(name);
  return null;
};
let passed = 0;
let failed = 0;
let skipped = 0;
for (const name of ['unit.json', 'integration.json', 'faults.json']) {
  const r = read(name);
  passed += r?.numPassedTests ?? 0;
  failed += r?.numFailedTests ?? 0;
  skipped += (r?.numPendingTests ?? 0) + (r?.numTodoTests ?? 0);
}
const e2e = read('e2e.json');
passed += (e2e?.stats.expected ?? 0) + (e2e?.stats.flaky ?? 0);
failed += e2e?.stats.unexpected ?? 0;
skipped += e2e?.stats.skipped ?? 0;

if (failedSteps.length) console.log(`failed steps: ${failedSteps.join(', ')}`);
if (missing.length) console.log(`no report from: ${missing.join(', ')}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || failedSteps.length > 0 || missing.length > 0 ? 1 : 0);
