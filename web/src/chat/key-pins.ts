/**
 * Trust on first use for contacts' keys (docs/security.md §5): the first fingerprint seen for a
 * member is pinned in IndexedDB; if the server later hands out a different key for that member,
 * the chat warns loudly until the member accepts the new key.
 */
import { fingerprint } from '@enclave/crypto';
import type { PublicUser } from '@enclave/protocol';
import { CONTACTS_STORE, withStore, writeBatch } from '../lib/enclave-db';

export type PinStatus = {
  /** Safety number of the keys the server hands out now. */
  fingerprint: string;
  /** True when it differs from the one pinned the first time this member was seen. */
  changed: boolean;
};

type PinRecord = { owner: string; contact: string; fingerprint: string; pinnedAt: string };

function pinKey(ownerId: string, contactId: string): string {
  return `${ownerId}:${contactId}`;
}

function isPinRecord(value: unknown): value is PinRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.contact === 'string' && typeof record.fingerprint === 'string';
}

async function readPins(ownerId: string): Promise<Map<string, string>> {
  const range = IDBKeyRange.bound(`${ownerId}:`, `${ownerId}:\uffff`);
  const values: unknown[] = await withStore(CONTACTS_STORE, 'readonly', (store) => store.getAll(range));
  return new Map(values.filter(isPinRecord).map((r) => [r.contact, r.fingerprint]));
}

function record(ownerId: string, contactId: string, value: string): PinRecord {
  return { owner: ownerId, contact: contactId, fingerprint: value, pinnedAt: new Date().toISOString() };
}

/** Pins (replacing any earlier pin) this fingerprint for the contact: "accept the new key". */
export async function pinFingerprint(ownerId: string, contactId: string, value: string): Promise<void> {
  await writeBatch(CONTACTS_STORE, (store) => store.put(record(ownerId, contactId, value), pinKey(ownerId, contactId)));
}

/** Checks every member against their pin, pinning the ones seen for the first time. */
export async function checkPins(ownerId: string, users: readonly PublicUser[]): Promise<Map<string, PinStatus>> {
  const pins = await readPins(ownerId);
  const statuses = new Map<string, PinStatus>();
  const firstSeen: PinRecord[] = [];
  for (const user of users) {
    if (user.id === ownerId) continue;
    const current = await fingerprint({
      encryptionPublicKey: user.encryptionPublicKey,
      signingPublicKey: user.signingPublicKey,
    });
    const pinned = pins.get(user.id);
    if (pinned === undefined) firstSeen.push(record(ownerId, user.id, current));
    statuses.set(user.id, { fingerprint: current, changed: pinned !== undefined && pinned !== current });
  }
  if (firstSeen.length) {
    await writeBatch(CONTACTS_STORE, (store) => {
      for (const r of firstSeen) store.put(r, pinKey(r.owner, r.contact));
    });
  }
  return statuses;
}
