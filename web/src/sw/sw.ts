/**
 * The service worker (built to /sw.js by web/vite-service-worker.ts, registered by register.ts).
 * It keeps the app shell, the public files listed at build, so the login screen opens offline; it
 * never caches the API, the socket, a message or a token (shell.ts decides). It also shows the
 * contentless "New message" notification of a Web Push.
 */
import { cacheName, PUSH_TAG, PUSH_TITLE, routeOf, SHELL_PAGE, staleCaches } from './shell';

// Filled in at build with the shell's file list and a hash of its contents.
declare const __ENCLAVE_PRECACHE__: string[];
declare const __ENCLAVE_SHELL_VERSION__: string;

// The worker's own types, just what is used here (the web package's lib is the DOM's).
type ExtendableEvent = Event & { waitUntil(p: Promise<unknown>): void };
type FetchEvent = ExtendableEvent & { request: Request; respondWith(r: Promise<Response>): void };
type NotificationEvent = ExtendableEvent & { notification: Notification };
type WindowClient = { url: string; focus(): Promise<WindowClient>; navigate(url: string): Promise<WindowClient | null> };
type WorkerScope = {
  location: Location;
  registration: ServiceWorkerRegistration;
  clients: {
    claim(): Promise<void>;
    matchAll(o: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate' | 'push', listener: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (e: FetchEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (e: NotificationEvent) => void): void;
};

const scope = self as unknown as WorkerScope;
/**
 * The page's own request, passed on as it is: the API client (web/src/net) is the page's; here
 * there is nothing to add to a request, only the shell's files to answer from the cache.
 */
// eslint-disable-next-line no-restricted-globals -- the worker's network is the browser's fetch itself.
const network = (request: Request) => fetch(request);
const shellCache = cacheName(__ENCLAVE_SHELL_VERSION__);
const precached = new Set(__ENCLAVE_PRECACHE__);

scope.addEventListener('install', (event) => {
  // `reload`: straight from the server, never an older copy from the HTTP cache.
  const fill = caches.open(shellCache).then((cache) => cache.addAll(__ENCLAVE_PRECACHE__.map((u) => new Request(u, { cache: 'reload' }))));
  // The new shell takes over at once: pages are fetched from the network first, so an open tab
  // keeps working, and the old shell's files would otherwise linger.
  event.waitUntil(fill.then(() => scope.skipWaiting()));
});

scope.addEventListener('activate', (event) => {
  const clean = caches.keys().then((names) => Promise.all(staleCaches(names, shellCache).map((n) => caches.delete(n))));
  event.waitUntil(clean.then(() => scope.clients.claim()));
});

scope.addEventListener('fetch', (event) => {
  const route = routeOf(event.request, scope.location.origin, precached);
  // The API, the socket and everything else go to the network untouched, and are never stored.
  if (route === 'network') return;
  if (route === 'precached') {
    event.respondWith(caches.match(event.request, { cacheName: shellCache }).then((hit) => hit ?? network(event.request)));
    return;
  }
  // App pages: the server's newest page while online (so a release shows at once); offline, the shell.
  event.respondWith(
    network(event.request).catch(async (error: unknown) => {
      const page = await caches.match(SHELL_PAGE, { cacheName: shellCache });
      if (page) return page;
      throw error;
    }),
  );
});

// The payload is ignored: whatever it says, the notification names no sender and no conversation.
scope.addEventListener('push', (event) => {
  event.waitUntil(scope.registration.showNotification(PUSH_TITLE, { tag: PUSH_TAG, icon: '/icons/icon-192.png' }));
});

scope.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    scope.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
      const open = windows.find((w) => new URL(w.url).origin === scope.location.origin);
      if (open) await open.focus();
      else await scope.clients.openWindow('/');
    }),
  );
});
