/**
 * `test` for every spec: Playwright's, with one guard added to every test whether it asks for it or
 * not. The server sends `script-src 'self'` (no inline script, no eval; docs/security.md §6), and
 * the app must run under it without a single violation: each browser context a test opens records
 * the page's `securitypolicyviolation` events and Chromium's "Content Security Policy" console
 * messages, and any of them fails the test. Specs import `test` from here (lint enforces it).
 */
import { test as base, expect, type Browser, type BrowserContext } from '@playwright/test';

const MARK = '[csp-violation]';

async function watch(context: BrowserContext, violations: string[]): Promise<void> {
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
function watchNewContexts(browser: Browser, violations: string[]): () => void {
  const original = browser.newContext;
  browser.newContext = async (options) => {
    const context = await original.call(browser, options);
    await watch(context, violations);
    return context;
  };
  return () => {
    browser.newContext = original;
  };
}

export const test = base.extend<{ cspViolations: string[] }>({
  cspViolations: [
    async ({ browser }, use) => {
      const violations: string[] = [];
      for (const context of browser.contexts()) await watch(context, violations);
      const restore = watchNewContexts(browser, violations);
      try {
        await use(violations);
      } finally {
        restore();
      }
      expect(violations, 'Content-Security-Policy violations').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
