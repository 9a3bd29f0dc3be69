import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { limits } from '@enclave/protocol';
import { indexedDbPinStore } from './key-pins';

/** The `contacts` store as a plain map behind a stand-in for the database helpers (Node has no IndexedDB). */
const contacts = vi.hoisted(() => new Map<string, unknown>());
/** Write transactions and reads by key the store made. */
const calls = vi.hoisted(() => ({ batches: 0, gets: 0 }));

vi.mock('../lib/enclave-db', () => {
  type Range = { lower: string; upper: string };
  /** Reads made in a transaction: each answers once the transaction's code has run, as IndexedDB's do. */
  type Read = { result: unknown; onsuccess?: (event: { target: Read }) => void };
  let reads: Read[] = [];
  const store = {
    getAll: (range: Range) => [...contacts.entries()].filter(([key]) => key >= range.lower && key <= range.upper).map(([, value]) => value),
    get: (key: string) => {
      calls.gets += 1;
      const read: Read = { result: contacts.get(key) };
      reads.push(read);
      return read;
    },
    put: (value: unknown, key: string) => void contacts.set(key, value),
  };
  return {
    CONTACTS_STORE: 'contacts',
    transact: async (_names: string[], _mode: string, run: (tx: { objectStore: () => typeof store }) => unknown) => {
      reads = [];
      const result = run({ objectStore: () => store });
      for (const read of reads) read.onsuccess?.({ target: read });
      return result;
    },
    withStore: async (_name: string, _mode: string, run: (s: typeof store) => unknown) => run(store),
    writeBatch: async (_name: string, write: (s: typeof store) => void) => {
      calls.batches += 1;
      write(store);
    },
  };
});

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';

const pin = (owner: string, contact: string, fingerprint: string) => ({
  owner,
  contact,
  fingerprint,
  pinnedAt: '2026-01-01T00:00:00.000Z',
});

beforeAll(() => {
  vi.stubGlobal('IDBKeyRange', { bound: (lower: string, upper: string) => ({ lower, upper }) });
});
afterAll(() => {
  vi.unstubAllGlobals();
});
beforeEach(() => {
  contacts.clear();
  calls.batches = 0;
  calls.gets = 0;
});

describe('indexedDbPinStore', () => {
  it("writes pins under owner:contact in one transaction and reads back only the owner's", async () => {
    await indexedDbPinStore.write([pin(ALICE, BOB, 'fp-bob'), pin(ALICE, CAROL, 'fp-carol'), pin(BOB, ALICE, 'fp-alice')]);
    expect(calls.batches).toBe(1);
    expect([...contacts.keys()].sort()).toEqual([`${ALICE}:${BOB}`, `${ALICE}:${CAROL}`, `${BOB}:${ALICE}`].sort());
    expect(await indexedDbPinStore.read(ALICE)).toEqual([pin(ALICE, BOB, 'fp-bob'), pin(ALICE, CAROL, 'fp-carol')]);
  });

  it("reads only the pins of the contacts asked for, leaving out those with none and other owners'", async () => {
    await indexedDbPinStore.write([pin(ALICE, BOB, 'fp-bob'), pin(ALICE, CAROL, 'fp-carol'), pin(BOB, CAROL, 'fp-carol')]);
    expect(await indexedDbPinStore.read(ALICE, [CAROL, ALICE])).toEqual([pin(ALICE, CAROL, 'fp-carol')]);
    expect(await indexedDbPinStore.read(BOB, [BOB])).toEqual([]);
    expect(calls.gets).toBe(3);
    // More contacts than a page: every pin held, read at once, then those asked for.
    const many = [CAROL, ...Array.from({ length: limits.channelSharesPerUpload }, () => crypto.randomUUID())];
    expect(await indexedDbPinStore.read(ALICE, many)).toEqual([pin(ALICE, CAROL, 'fp-carol')]);
    expect(calls.gets).toBe(3);
  });

  it('replaces the earlier pin of the same contact', async () => {
    await indexedDbPinStore.write([pin(ALICE, BOB, 'fp-bob')]);
    await indexedDbPinStore.write([pin(ALICE, BOB, 'fp-bob-2')]);
    expect((await indexedDbPinStore.read(ALICE)).map((r) => r.fingerprint)).toEqual(['fp-bob-2']);
  });

  it('keeps the verified mark with the pin, and reads a pin without one as unverified', async () => {
    await indexedDbPinStore.write([{ ...pin(ALICE, BOB, 'fp-bob'), verifiedFingerprint: 'fp-bob' }, pin(ALICE, CAROL, 'fp-carol')]);
    expect(await indexedDbPinStore.read(ALICE)).toEqual([
      { ...pin(ALICE, BOB, 'fp-bob'), verifiedFingerprint: 'fp-bob' },
      pin(ALICE, CAROL, 'fp-carol'),
    ]);
    expect((await indexedDbPinStore.read(ALICE))[1]).not.toHaveProperty('verifiedFingerprint');
  });

  it('skips stored values that are not pins', async () => {
    contacts.set(`${ALICE}:${BOB}`, { contact: BOB, fingerprint: 42 });
    contacts.set(`${ALICE}:${CAROL}`, 'garbage');
    expect(await indexedDbPinStore.read(ALICE)).toEqual([]);
  });

  it('opens no transaction for nothing to write', async () => {
    await indexedDbPinStore.write([]);
    expect(calls.batches).toBe(0);
  });
});
