/**
 * What bench/browser.ts runs inside the page (passed to Playwright's `evaluate` and
 * `addInitScript`): each function stands alone, using nothing but the page's own globals.
 */
/** Long tasks (≥ 50 ms, the browser's own threshold) from the page's start, read by the phases below. */
export function installLongTaskObserver(): void {
  const tasks: { start: number; duration: number }[] = [];
  (window as unknown as { __longTasks: typeof tasks }).__longTasks = tasks;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) tasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
}

export type Phase = { ms: number; start: number; end: number; shown: number; readable: number };

/**
 * In the page: clicks "Decrypt & Access" and waits, frame by frame, until the first page is on
 * screen with every message decrypted. Times are the page's own clock.
 */
export function signInAndWaitFirstPage(page: number): Promise<Phase> {
  const button = Array.from(document.querySelectorAll('button')).find((b) => b.textContent?.trim() === 'Decrypt & Access');
  if (!button) throw new Error('no Decrypt & Access button');
  const start = performance.now();
  button.click();
  return new Promise((resolve) => {
    const check = () => {
      // The text is read only once every row is there: reading it each frame would cost the page more than it measures.
      const items = document.querySelectorAll('[data-message-id]');
      const log = document.querySelector('[role="log"]');
      if (items.length >= page && log && !log.textContent?.includes('Decrypting…')) {
        const end = performance.now();
        const readable = Array.from(items).filter((i) => i.textContent?.includes('Message ')).length;
        resolve({ ms: end - start, start, end, shown: items.length, readable });
      } else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
}

/**
 * In the page: the reader scrolls the conversation to the top every frame (older pages load as it
 * nears the top, and the list keeps the row they were reading in place, so the next frame scrolls
 * up again), until there is no older page and every message is in the list decrypted.
 */
export function loadAllHistory(total: number): Promise<Phase> {
  const start = performance.now();
  return new Promise((resolve) => {
    const step = () => {
      const log = document.querySelector('[role="log"]');
      if (log && log.scrollTop > 0) log.scrollTop = 0;
      const older = Array.from(document.querySelectorAll('button')).find((b) =>
        /^(Load older messages|Loading…)$/.test(b.textContent?.trim() ?? ''),
      );
      const items = document.querySelectorAll('[data-message-id]');
      if (!older && items.length >= total && log && !log.textContent?.includes('Decrypting…')) {
        const end = performance.now();
        const readable = Array.from(items).filter((i) => i.textContent?.includes('Message ')).length;
        resolve({ ms: end - start, start, end, shown: items.length, readable });
      } else requestAnimationFrame(step);
    };
    step();
  });
}

/**
 * In the page, installed before the app's scripts: every animation frame from the page's start
 * until the first page is on screen with every message decrypted; the time (the page's clock,
 * from its navigation) is left in `__firstPageAt`.
 */
export function watchFirstPage(page: number): void {
  const check = () => {
    const items = document.querySelectorAll('[data-message-id]');
    const log = document.querySelector('[role="log"]');
    if (items.length >= page && log && !log.textContent?.includes('Decrypting…')) {
      (window as unknown as { __firstPageAt: number }).__firstPageAt = performance.now();
    } else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

/** Whether the history store of the `enclave` database (the sealed history cache) holds records yet. */
export function historyWritten(): Promise<boolean> {
  return new Promise((resolve) => {
    const open = indexedDB.open('enclave');
    open.onerror = () => resolve(false);
    open.onsuccess = () => {
      const db = open.result;
      const count = db.objectStoreNames.contains('history') ? db.transaction('history').objectStore('history').count() : null;
      if (!count) return (db.close(), resolve(false));
      count.onsuccess = () => (db.close(), resolve(count.result > 0));
    };
  });
}

/** The page's own timings up to now: the document, its scripts, and each API request, start → end. */
export function timeline(): string {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
  const calls = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
    .map((e) => ({ path: new URL(e.name).pathname, at: `${Math.round(e.startTime)}→${Math.round(e.responseEnd)}` }))
    .filter(({ path }) => path.startsWith('/api/') || path.endsWith('.js'));
  return [
    `document ${Math.round(nav.responseEnd)}`,
    `DOMContentLoaded ${Math.round(nav.domContentLoadedEventEnd)}`,
    ...calls.map((c) => `${c.path} ${c.at}`),
  ].join(', ');
}
