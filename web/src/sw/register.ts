/**
 * Registers the service worker (sw.ts) in production builds: the dev server has no /sw.js, and a
 * worker there would serve stale modules. `updateViaCache: 'none'`: the browser always asks the
 * server for /sw.js (served no-cache too), so a new release's worker is found on the next visit.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/', updateViaCache: 'none' }).catch(() => {
      // No worker (private mode, blocked by policy): the app works online as before.
    });
  });
}
