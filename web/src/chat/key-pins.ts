/**
 * Where the browser keeps the contacts' pinned fingerprints: the `contacts` store of IndexedDB
 * (lib/enclave-db.ts), one record per owner and contact under `owner:contact`, with the verified
 * mark when the member gave one (so it never leaves this browser). Logout leaves it
 * alone, so a server cannot have keys re-pinned by ending a session. What the pins mean is decided
 * by `KeyTrust` (@enclave/client); this is only its storage.
 */
import type { PinRecord, PinStore } from '@enclave/client';
import { limits } from '@enclave/protocol';
import { CONTACTS_STORE, transact, withStore, writeBatch } from '../lib/enclave-db';

function pinKey(ownerId: string, contactId: string): string {
  return `${ownerId}:${contactId}`;
}

/** A stored pin, read as one only when its fields are there (storage is outside input too). */
function toPinRecord(ownerId: string, value: unknown): PinRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const { contact, fingerprint, pinnedAt, verifiedFingerprint } = value as Record<string, unknown>;
  if (typeof contact !== 'string' || typeof fingerprint !== 'string') return null;
  const record: PinRecord = { owner: ownerId, contact, fingerprint, pinnedAt: typeof pinnedAt === 'string' ? pinnedAt : '' };
  return typeof verifiedFingerprint === 'string' ? { ...record, verifiedFingerprint } : record;
}

/**
 * Up to this many contacts, their pins are read one by one; beyond it, every pin the member holds
 * in one `getAll`. In Chromium, with 100,000 pins held, a read by key costs about 33 µs and
 * `getAll` about 9 µs a pin held (measured beside `npm run bench:wrap`): a page of the channel
 * key's members (5,000) reads its own pins, the whole member list reads them all at once.
 */
const READ_BY_KEY_AT_MOST = limits.channelSharesPerUpload;

/** The browser's {@link PinStore}, over IndexedDB. */
export const indexedDbPinStore: PinStore = {
  async read(ownerId, contacts) {
    if (contacts && contacts.length <= READ_BY_KEY_AT_MOST) {
      // One transaction of one read per contact: a page of a large channel, not every pin held.
      const values = await transact([CONTACTS_STORE], 'readonly', (tx) => {
        const found: unknown[] = [];
        const store = tx.objectStore(CONTACTS_STORE);
        for (const contact of contacts) store.get(pinKey(ownerId, contact)).onsuccess = (e) => found.push((e.target as IDBRequest).result);
        return found;
      });
      return values.flatMap((value) => toPinRecord(ownerId, value) ?? []);
    }
    const range = IDBKeyRange.bound(`${ownerId}:`, `${ownerId}:\uffff`);
    const values: unknown[] = await withStore(CONTACTS_STORE, 'readonly', (store) => store.getAll(range));
    const records = values.map((value) => toPinRecord(ownerId, value)).filter((record) => record !== null);
    if (!contacts) return records;
    const wanted = new Set(contacts);
    return records.filter((record) => wanted.has(record.contact));
  },

  async write(records) {
    if (!records.length) return;
    // One transaction for the batch: a first sight of the whole member list is one database open.
    await writeBatch(CONTACTS_STORE, (store) => {
      for (const record of records) store.put(record, pinKey(record.owner, record.contact));
    });
  },
};
