/**
 * The browser wipe of the tamper detectors, the server's breach alert and the member's emergency
 * wipe: local and session storage, Cache Storage, and the IndexedDB key store. It removes only
 * what this browser holds; the account stays, and the member signs in again with the access token.
 *
 * `pins: 'keep'` (detectors and the breach alert) keeps the contacts' key pins: a wipe that anyone
 * able to trip a detector or send a frame could cause must not let a server have every contact
 * re-pinned to keys of its choosing (docs/security.md §3). The member's own emergency wipe deletes
 * them too: they are the list of whom the member talks to.
 */
import { clearKeyStore } from '../auth/key-store';
import { deleteDatabase } from '../lib/enclave-db';

export type WipeOptions = { pins: 'keep' | 'delete' };

async function clearCaches(): Promise<void> {
  if (!('caches' in globalThis)) return;
  const names = await caches.keys();
  await Promise.all(names.map((name) => caches.delete(name)));
}

function clearStorage(storage: () => Storage): void {
  try {
    storage().clear();
  } catch (error) {
    // Storage switched off by the browser: there is nothing in it to wipe.
    console.error('could not clear storage', error);
  }
}

/** Wipes what this browser holds; never rejects (the caller is leaving the page either way). */
export async function wipeBrowser({ pins }: WipeOptions): Promise<void> {
  clearStorage(() => localStorage);
  clearStorage(() => sessionStorage);
  const keys = pins === 'keep' ? clearKeyStore() : deleteDatabase();
  const results = await Promise.allSettled([clearCaches(), keys]);
  for (const r of results) if (r.status === 'rejected') console.error('wipe incomplete', r.reason);
}
