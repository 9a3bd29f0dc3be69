/**
 * `test` for every spec: Playwright's, with two guards added to every test whether it asks for
 * them or not, over every browser context the test opens.
 *
 * - Content-Security-Policy: the server sends `script-src 'self'` (no inline script, no eval;
 *   docs/security.md §6), and the app must run under it without a single violation. The page's
 *   `securitypolicyviolation` events and Chromium's "Content Security Policy" console messages are
 *   recorded, and any of them fails the test.
 * - Tamper detection: normal use must never trip it (docs/security.md §10). Any decoy call or
 *   breach report a browser sends fails the test, unless the test forces detections and says so
 *   with `test.use({ tamperCountermeasures: 'expected' })`.
 *
 * Specs import `test` from here (lint enforces it).
 */
import { test as base, expect, type Browser, type BrowserContext } from '@playwright/test';

const MARK = '[csp-violation]';

/** What a tamper detection makes the browser send (docs/spec.md §7). */
const isCountermeasure = (url: string) => {
  const path = new URL(url).pathname;
  return path.startsWith('/api/decoy/') || path === '/api/security/breach';
};

type Findings = { violations: string[]; countermeasures: string[] };

async function watch(context: BrowserContext, { violations, countermeasures }: Findings): Promise<void> {
  context.on('request', (request) => {
    if (isCountermeasure(request.url())) countermeasures.push(`${request.method()} ${request.url()}`);
  });
  context.on('console', (message) => {
    const text = message.text();
    if (text.startsWith(MARK) || text.includes('Content Security Policy')) violations.push(`${message.location().url}: ${text}`);
  });
  // Some violations (a refused eval) reach the console only through the page's own event.
  await context.addInitScript((mark) => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`${mark} ${e.effectiveDirective} refused ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  }, MARK);
}

/**
 * Until `restore` is called, every context made from `browser` (by the test, by Playwright's own
 * `page` and `context` fixtures, or by `browser.newPage`) is watched before it is handed out.
 */
function watchNewContexts(browser: Browser, findings: Findings): () => void {
  const original = browser.newContext;
  browser.newContext = async (options) => {
    const context = await original.call(browser, options);
    await watch(context, findings);
    return context;
  };
  return () => {
    browser.newContext = original;
  };
}

export const test = base.extend<{ tamperCountermeasures: 'none' | 'expected'; browserGuards: Findings }>({
  tamperCountermeasures: ['none', { option: true }],
  browserGuards: [
    async ({ browser, tamperCountermeasures }, use) => {
      const findings: Findings = { violations: [], countermeasures: [] };
      for (const context of browser.contexts()) await watch(context, findings);
      const restore = watchNewContexts(browser, findings);
      try {
        await use(findings);
      } finally {
        restore();
      }
      expect(findings.violations, 'Content-Security-Policy violations').toEqual([]);
      if (tamperCountermeasures === 'none')
        expect(findings.countermeasures, 'decoy calls or breach reports (a tamper detection)').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
