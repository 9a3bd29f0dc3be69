/**
 * What the service worker (sw.ts) keeps and answers: the public files of the app shell, and
 * nothing else. Pure functions, shared by the build (web/vite-service-worker.ts, which lists the
 * files) and the worker (which routes requests), so both agree and are tested alike.
 */

/** Every cache the worker makes starts with this; a new version deletes the others on activation. */
export const CACHE_PREFIX = 'enclave-shell-';

/** The page every navigation of the app gets when the network is gone. */
export const SHELL_PAGE = '/index.html';

/** A push shows only this (the payload carries nothing; the sender and conversation stay in the app). */
export const PUSH_TITLE = 'New message';
/** One tag: several pushes collapse into one notification. */
export const PUSH_TAG = 'enclave-new-message';

/** Paths the app never serves: the API, the socket, the server's own files. Never cached, never answered by the worker. */
const neverHandled = [/^\/api(?:\/|$)/, /^\/ws(?:\/|$)/, /^\/metrics$/, /^\/robots\.txt$/, /^\/sw\.js$/];

/** Files of the build the worker keeps: the page, its hashed code and styles, the manifest and icons. */
const shellFile =
  /^(?:index\.html|manifest\.webmanifest|favicon\.svg|icons\/[\w.-]+\.png|assets\/[\w.-]+\.(?:js|css|woff2?|svg|png|wasm))$/;

/**
 * The URLs to precache, from the build's file list (paths relative to its folder, either slash).
 * Compressed siblings (.br, .gz), source maps and the worker itself are left out. Sorted, so the
 * same build always gives the same list (and the same version).
 *
 * @example
 * precacheList(['index.html', 'assets/index-abc.js', 'assets/index-abc.js.br']); // ['/assets/index-abc.js', '/index.html']
 */
export function precacheList(files: readonly string[]): string[] {
  return files
    .map((f) => f.replaceAll('\\', '/'))
    .filter((f) => shellFile.test(f))
    .map((f) => `/${f}`)
    .sort();
}

/** The cache of one version of the shell. */
export function cacheName(version: string): string {
  return `${CACHE_PREFIX}${version}`;
}

/** The caches a new version removes: the worker's older shells, never a cache it did not make. */
export function staleCaches(names: readonly string[], current: string): string[] {
  return names.filter((n) => n.startsWith(CACHE_PREFIX) && n !== current);
}

export type Route = 'shell' | 'precached' | 'network';

/**
 * How the worker answers a request. `shell`: an app page (network first, the cached index.html
 * offline); `precached`: a file of the shell (cache first; hashed names never change meaning);
 * `network`: left alone, never cached: the API, the socket, other origins, anything not a GET.
 */
export function routeOf(request: { url: string; method: string; mode: string }, origin: string, precached: ReadonlySet<string>): Route {
  if (request.method !== 'GET') return 'network';
  const url = new URL(request.url);
  if (url.origin !== origin || neverHandled.some((p) => p.test(url.pathname))) return 'network';
  if (request.mode === 'navigate') return 'shell';
  return precached.has(url.pathname) && url.search === '' ? 'precached' : 'network';
}
