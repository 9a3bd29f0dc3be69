/** What a browser holds of Enclave, read from inside the page. */
import type { Page } from '@playwright/test';

export type BrowserData = {
  local: number;
  session: number;
  /** Records per store of the `enclave` IndexedDB database; empty when the database does not exist. */
  records: Record<string, number>;
  /** Cache Storage caches besides the service worker's app shell (public build files only, e2e/installable-app.spec.ts). */
  caches: number;
};

/**
 * Entries of local and session storage, records of the `enclave` database and Cache Storage
 * caches other than the app shell's. The database is never created here (that would leave the app one without its stores).
 */
export function browserData(page: Page): Promise<BrowserData> {
  return page.evaluate(async () => {
    const exists = (await indexedDB.databases()).some((d) => d.name === 'enclave');
    const records = !exists
      ? {}
      : await new Promise<Record<string, number>>((resolve, reject) => {
          const open = indexedDB.open('enclave');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            const names = Array.from(db.objectStoreNames);
            if (!names.length) return resolve({});
            const tx = db.transaction(names, 'readonly');
            const counts: Record<string, number> = {};
            for (const name of names)
              tx.objectStore(name).count().onsuccess = (e) => (counts[name] = (e.target as IDBRequest<number>).result);
            tx.oncomplete = () => {
              db.close();
              resolve(counts);
            };
          };
        });
    return {
      local: localStorage.length,
      session: sessionStorage.length,
      records,
      caches: (await caches.keys()).filter((n) => !n.startsWith('enclave-shell-')).length,
    };
  });
}

/** True when the browser holds nothing of Enclave: no storage entry, no record, no cache. */
export const isEmpty = (d: BrowserData): boolean =>
  d.local === 0 && d.session === 0 && d.caches === 0 && Object.values(d.records).every((n) => n === 0);

/**
 * Everything the page's origin keeps in the browser, as text: local and session storage, every
 * record of every IndexedDB database, and every cached response body. For checks that something
 * (a message's text, its ciphertext) rests nowhere.
 */
export function browserDataText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const parts = [JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      parts.push(
        await new Promise<string>((resolve, reject) => {
          const open = indexedDB.open(name);
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            const stores = Array.from(db.objectStoreNames);
            if (!stores.length) return resolve('');
            const tx = db.transaction(stores, 'readonly');
            const found: unknown[] = [];
            for (const store of stores)
              tx.objectStore(store).getAll().onsuccess = (e) => found.push((e.target as IDBRequest<unknown[]>).result);
            tx.oncomplete = () => {
              db.close();
              // Keys are CryptoKey objects (not serializable to JSON): their presence is what shows.
              resolve(JSON.stringify(found, (_k, v: unknown) => (v instanceof CryptoKey ? '[CryptoKey]' : v)));
            };
          };
        }),
      );
    }
    for (const cacheName of await caches.keys()) {
      const cache = await caches.open(cacheName);
      for (const request of await cache.keys()) parts.push(request.url, (await (await cache.match(request))?.text()) ?? '');
    }
    return parts.join('\n');
  });
}
