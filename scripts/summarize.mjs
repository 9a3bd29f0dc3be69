// Prints "N passed, M failed" over the vitest and Playwright JSON reports, and exits non-zero
// when any test or step failed.
import fs from 'node:fs';
import path from 'node:path';

const [dir, ...failedSteps] = process.argv.slice(2);
let passed = 0;
let failed = 0;
const read = (name) => {
  const file = path.join(dir, name);
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
};
for (const name of ['unit.json', 'integration.json']) {
  const r = read(name);
  if (r) {
    passed += r.numPassedTests;
    failed += r.numFailedTests;
  }
}
const e2e = read('e2e.json');
if (e2e) {
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
}
if (failedSteps.length) console.log(`failed steps: ${failedSteps.join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || failedSteps.length > 0 || passed === 0 ? 1 : 0);
