import type { PublicIdentity } from '@enclave/crypto';
import type { PublicUser } from '@enclave/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEY_CHANGED, KeyTrust, RecipientKeyError, type PinStore, type Recipient } from './key-trust';
import { MemoryPinStore } from './memory-pin-store';
import { listedMember } from './testing';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const DAVE = '00000000-0000-4000-8000-00000000000d';

/** Alice's own keys, derived from her private keys. */
const ALICE_KEYS: PublicIdentity = { encryptionPublicKey: 'enc-alice', signingPublicKey: 'sig-alice' };

function user(id: string, name: string, keys: Partial<PublicIdentity> = {}): PublicUser {
  return listedMember(id, name, { encryptionPublicKey: `enc-${name}`, signingPublicKey: `sig-${name}`, ...keys });
}

/** The fingerprint the fake crypto gives these keys. */
const fp = (keys: PublicIdentity) => `fp(${keys.encryptionPublicKey}|${keys.signingPublicKey})`;

/** A fake verify key that says whose keys it was imported from. */
type FakeKey = { imported: string };

function setup(options: { users?: PublicUser[]; late?: PublicUser[]; pins?: PinStore } = {}) {
  let users = options.users ?? [user(ALICE, 'alice'), user(BOB, 'bob'), user(CAROL, 'carol')];
  const calls = { fresh: 0, imports: [] as string[], fingerprints: 0 };
  const pins = options.pins ?? new MemoryPinStore();
  const make = () =>
    new KeyTrust({
      self: { id: ALICE, ...ALICE_KEYS },
      pins,
      now: () => Date.parse('2026-02-03T04:05:06.000Z'),
      members: {
        current: async () => users,
        fresh: async () => {
          calls.fresh += 1;
          return [...users, ...(options.late ?? [])];
        },
      },
      crypto: {
        // Keys that are "not base64" fail here, as the real fingerprint does.
        fingerprint: async (keys) => {
          calls.fingerprints += 1;
          if (keys.encryptionPublicKey.includes('!')) throw new Error('malformed');
          return fp(keys);
        },
        // Keys that are base64 but no SPKI fail only here.
        importPublicIdentity: async (keys) => {
          calls.imports.push(keys.signingPublicKey);
          if (keys.encryptionPublicKey.startsWith('junk')) throw new Error('does not import');
          return { encryptKey: {} as CryptoKey, verifyKey: { imported: keys.signingPublicKey } as unknown as CryptoKey };
        },
      },
    });
  return {
    trust: make(),
    /** Another KeyTrust over the same pins: a new session of the same member. */
    again: make,
    pins,
    calls,
    setUsers: (next: PublicUser[]) => void (users = next),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

const bobWithNewKey = user(BOB, 'bob', { encryptionPublicKey: 'enc-bob-2', signingPublicKey: 'sig-bob-2' });
const keyOf = (key: CryptoKey | null | typeof KEY_CHANGED) => (key as unknown as FakeKey | null | typeof KEY_CHANGED);

describe('KeyTrust pins', () => {
  it('pins a contact the first time they are seen', async () => {
    const t = setup();
    const statuses = await t.trust.check([user(BOB, 'bob')]);
    expect(statuses.get(BOB)).toEqual({ fingerprint: fp(user(BOB, 'bob')), changed: false, verified: false });
    expect(await t.pins.read(ALICE)).toEqual([
      { owner: ALICE, contact: BOB, fingerprint: fp(user(BOB, 'bob')), pinnedAt: '2026-02-03T04:05:06.000Z' },
    ]);
  });

  it('lets the same key pass again, in this session and the next', async () => {
    const t = setup();
    await t.trust.check([user(BOB, 'bob')]);
    expect((await t.trust.check([user(BOB, 'bob')])).get(BOB)?.changed).toBe(false);
    expect((await t.again().check([user(BOB, 'bob')])).get(BOB)?.changed).toBe(false);
    expect(await t.pins.read(ALICE)).toHaveLength(1);
  });

  it('reports a changed key and keeps the first pin', async () => {
    const t = setup();
    await t.trust.check([user(BOB, 'bob')]);
    const statuses = await t.again().check([bobWithNewKey]);
    expect(statuses.get(BOB)).toEqual({ fingerprint: fp(bobWithNewKey), changed: true, verified: false });
    expect((await t.pins.read(ALICE)).map((r) => r.fingerprint)).toEqual([fp(user(BOB, 'bob'))]);
  });

  it('re-pins a key the member accepts', async () => {
    const t = setup();
    await t.trust.check([user(BOB, 'bob')]);
    await t.trust.accept(BOB, fp(bobWithNewKey));
    expect((await t.trust.check([bobWithNewKey])).get(BOB)?.changed).toBe(false);
    expect((await t.pins.read(ALICE)).map((r) => r.fingerprint)).toEqual([fp(bobWithNewKey)]);
  });

  it('never lists the member themselves, whatever key the server shows for them', async () => {
    const t = setup();
    const statuses = await t.trust.check([user(ALICE, 'alice', { encryptionPublicKey: 'server-chosen' }), user(BOB, 'bob')]);
    expect([...statuses.keys()]).toEqual([BOB]);
  });

  it('leaves out a contact whose keys are malformed, and still checks the others', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const t = setup();
    const statuses = await t.trust.check([user(BOB, 'bob', { encryptionPublicKey: 'not base64!' }), user(CAROL, 'carol')]);
    expect([...statuses.keys()]).toEqual([CAROL]);
  });

  it('pins only one of two keys seen at the same time for a new contact', async () => {
    const t = setup();
    const [first, second] = await Promise.all([t.trust.check([user(BOB, 'bob')]), t.trust.check([bobWithNewKey])]);
    expect([first.get(BOB)?.changed, second.get(BOB)?.changed]).toEqual([false, true]);
    expect(await t.pins.read(ALICE)).toHaveLength(1);
  });
});

describe('KeyTrust verified mark', () => {
  const bob = user(BOB, 'bob');

  it('marks the pinned key verified, in this session and the next, and clears the mark', async () => {
    const t = setup();
    await t.trust.check([bob]);
    await t.trust.verify(BOB, fp(bob));
    expect((await t.trust.check([bob])).get(BOB)).toEqual({ fingerprint: fp(bob), changed: false, verified: true });
    expect((await t.again().check([bob])).get(BOB)?.verified).toBe(true);
    await t.trust.clearVerification(BOB);
    expect((await t.trust.check([bob])).get(BOB)).toEqual({ fingerprint: fp(bob), changed: false, verified: false });
    expect((await t.pins.read(ALICE)).map((r) => r.fingerprint)).toEqual([fp(bob)]);
  });

  it('keeps the first pinning time when the pinned key is verified', async () => {
    const t = setup();
    await t.trust.check([bob]);
    await t.trust.verify(BOB, fp(bob));
    expect(await t.pins.read(ALICE)).toEqual([
      { owner: ALICE, contact: BOB, fingerprint: fp(bob), pinnedAt: '2026-02-03T04:05:06.000Z', verifiedFingerprint: fp(bob) },
    ]);
  });

  it('shows no mark for a changed key, warns, and keeps the mark on the old key only', async () => {
    const t = setup();
    await t.trust.check([bob]);
    await t.trust.verify(BOB, fp(bob));
    expect((await t.trust.check([bobWithNewKey])).get(BOB)).toEqual({ fingerprint: fp(bobWithNewKey), changed: true, verified: false });
    t.setUsers([user(ALICE, 'alice'), bobWithNewKey]);
    expect(await t.trust.verifyKeyFor(BOB)).toBe(KEY_CHANGED);
    // The server going back to the verified key is the verified key again.
    expect((await t.trust.check([bob])).get(BOB)?.verified).toBe(true);
  });

  it('starts unverified when the member acknowledges a changed key', async () => {
    const t = setup();
    await t.trust.check([bob]);
    await t.trust.verify(BOB, fp(bob));
    await t.trust.accept(BOB, fp(bobWithNewKey));
    expect((await t.trust.check([bobWithNewKey])).get(BOB)).toEqual({ fingerprint: fp(bobWithNewKey), changed: false, verified: false });
    expect((await t.trust.check([bob])).get(BOB)).toMatchObject({ changed: true, verified: false });
  });

  it('re-pins a changed key the member verifies, with the mark', async () => {
    const t = setup();
    await t.trust.check([bob]);
    await t.trust.check([bobWithNewKey]);
    await t.trust.verify(BOB, fp(bobWithNewKey));
    expect((await t.trust.check([bobWithNewKey])).get(BOB)).toEqual({ fingerprint: fp(bobWithNewKey), changed: false, verified: true });
  });

  it('writes nothing to clear a mark that is not there', async () => {
    const pins = new MemoryPinStore();
    const write = vi.spyOn(pins, 'write');
    const t = setup({ pins });
    await t.trust.check([bob]);
    await t.trust.clearVerification(BOB);
    expect(write).toHaveBeenCalledTimes(1);
  });
});

describe('KeyTrust.verifyKeyFor', () => {
  it('gives the listed key of a contact whose key agrees with the pin, pinning on first sight', async () => {
    const t = setup();
    expect(keyOf(await t.trust.verifyKeyFor(BOB))).toEqual({ imported: 'sig-bob' });
    expect(await t.pins.read(ALICE)).toHaveLength(1);
  });

  it('answers KEY_CHANGED for a changed key until it is accepted, then the new key', async () => {
    const t = setup();
    expect(keyOf(await t.trust.verifyKeyFor(BOB))).toEqual({ imported: 'sig-bob' });
    t.setUsers([user(ALICE, 'alice'), bobWithNewKey]);
    expect(await t.trust.verifyKeyFor(BOB)).toBe(KEY_CHANGED);
    expect(await t.trust.verifyKeyFor(BOB)).toBe(KEY_CHANGED);
    await t.trust.accept(BOB, fp(bobWithNewKey));
    expect(keyOf(await t.trust.verifyKeyFor(BOB))).toEqual({ imported: 'sig-bob-2' });
  });

  it.each(['accept', 'verify'] as const)('does not reuse a check queued before %s wrote the new pin', async (decide) => {
    const t = setup();
    await t.trust.check([user(BOB, 'bob')]);
    t.setUsers([user(ALICE, 'alice'), bobWithNewKey]);
    // Hold the pin reads so that a check is under way, queued ahead of the new pin.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const read = t.pins.read.bind(t.pins);
    const reading = new Promise<void>((started) => {
      vi.spyOn(t.pins, 'read').mockImplementation(async (owner) => {
        started();
        await held;
        return read(owner);
      });
    });
    const before = t.trust.verifyKeyFor(BOB);
    await reading;
    const deciding = t.trust[decide](BOB, fp(bobWithNewKey));
    const after = t.trust.verifyKeyFor(BOB);
    // One macrotask, no time: the decision and the second check queue up behind the held read, which nothing observable marks.
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    expect(await before).toBe(KEY_CHANGED);
    await deciding;
    expect(keyOf(await after)).toEqual({ imported: 'sig-bob-2' });
  });

  it('does not go back to a key it once agreed with after another was accepted', async () => {
    const t = setup();
    await t.trust.verifyKeyFor(BOB);
    await t.trust.accept(BOB, fp(bobWithNewKey));
    expect(await t.trust.verifyKeyFor(BOB)).toBe(KEY_CHANGED);
  });

  it("verifies the member's own messages with their own key, never the server's copy", async () => {
    const t = setup({ users: [user(ALICE, 'alice', { signingPublicKey: 'server-chosen' })] });
    expect(keyOf(await t.trust.verifyKeyFor(ALICE))).toEqual({ imported: ALICE_KEYS.signingPublicKey });
    expect(t.calls.imports).not.toContain('server-chosen');
  });

  it.each([
    ['a member not in the list (yet)', DAVE, [user(BOB, 'bob')]],
    ['a key that does not import', BOB, [user(BOB, 'bob', { encryptionPublicKey: 'junk' })]],
    ['a key that is not even base64', BOB, [user(BOB, 'bob', { encryptionPublicKey: 'junk!' })]],
  ])('answers null for %s', async (_name, userId, users) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const t = setup({ users });
    expect(await t.trust.verifyKeyFor(userId)).toBeNull();
  });

  it("checks a sender's pin once for all their messages decrypted together, and hashes each key once", async () => {
    const t = setup();
    const reads = vi.spyOn(t.pins, 'read');
    const keys = await Promise.all(Array.from({ length: 50 }, (_, i) => t.trust.verifyKeyFor(i % 2 ? BOB : CAROL)));
    expect(keys.map(keyOf)).toEqual(Array.from({ length: 50 }, (_, i) => ({ imported: i % 2 ? 'sig-bob' : 'sig-carol' })));
    expect(reads).toHaveBeenCalledTimes(2);
    expect(t.calls.fingerprints).toBe(2);
    // The member list's check hashes nothing again.
    await t.trust.check([user(BOB, 'bob'), user(CAROL, 'carol')]);
    expect(t.calls.fingerprints).toBe(2);
  });

  it('answers KEY_CHANGED to every message of a sender whose key changed, checked once', async () => {
    const t = setup();
    await t.trust.check([user(BOB, 'bob')]);
    t.setUsers([user(ALICE, 'alice'), bobWithNewKey]);
    const reads = vi.spyOn(t.pins, 'read');
    const keys = await Promise.all(Array.from({ length: 10 }, () => t.trust.verifyKeyFor(BOB)));
    expect(keys).toEqual(Array.from({ length: 10 }, () => KEY_CHANGED));
    expect(reads).toHaveBeenCalledTimes(1);
    // A later message asks the store again: an acceptance in another tab is seen at once.
    expect(await t.trust.verifyKeyFor(BOB)).toBe(KEY_CHANGED);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('answers null when the pins cannot be read, and trusts nothing', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const broken: PinStore = { read: () => Promise.reject(new Error('storage gone')), write: async () => undefined };
    const t = setup({ pins: broken });
    expect(await t.trust.verifyKeyFor(BOB)).toBeNull();
  });
});

describe('KeyTrust.checkRecipients', () => {
  const self: Recipient = { id: ALICE, encryptionPublicKey: ALICE_KEYS.encryptionPublicKey };
  const bob: Recipient = { id: BOB, encryptionPublicKey: 'enc-bob' };
  const carol: Recipient = { id: CAROL, encryptionPublicKey: 'enc-carol' };
  const dave: Recipient = { id: DAVE, encryptionPublicKey: 'enc-dave' };

  type Row = {
    name: string;
    receiverId: string;
    recipients: Recipient[];
    /** Keys Alice saw before (pinned), as the list then showed them. */
    pinnedBefore?: PublicUser[];
    users?: PublicUser[];
    late?: PublicUser[];
    refused: RegExp | null;
  };
  const rows: Row[] = [
    { name: 'the channel, everyone listed and first seen', receiverId: 'all', recipients: [self, bob, carol], refused: null },
    { name: 'the channel, keys equal to their pins', receiverId: 'all', recipients: [self, bob, carol], pinnedBefore: [user(BOB, 'bob')], refused: null },
    { name: 'a direct message to its two members', receiverId: BOB, recipients: [self, bob], refused: null },
    { name: 'only the member themselves', receiverId: 'all', recipients: [self], refused: null },
    { name: 'a member who joined a moment ago (not cached yet)', receiverId: 'all', recipients: [self, dave], late: [user(DAVE, 'dave')], refused: null },
    {
      name: 'a changed key',
      receiverId: 'all',
      recipients: [self, { id: BOB, encryptionPublicKey: 'enc-bob-2' }],
      pinnedBefore: [user(BOB, 'bob')],
      users: [user(ALICE, 'alice'), bobWithNewKey],
      refused: /key of bob changed/,
    },
    {
      name: "a key for the member that is not their own",
      receiverId: 'all',
      recipients: [{ id: ALICE, encryptionPublicKey: 'server-chosen' }, bob],
      refused: /unknown key for your own account/,
    },
    { name: 'a recipient the member list does not know', receiverId: 'all', recipients: [self, dave], refused: /unknown key for a member/ },
    {
      name: "a key other than the member list's",
      receiverId: 'all',
      recipients: [self, { id: BOB, encryptionPublicKey: 'server-chosen' }],
      refused: /unknown key for a member/,
    },
    { name: 'a stranger in a direct message', receiverId: BOB, recipients: [self, bob, carol], refused: /two members/ },
    {
      name: 'a key that does not import, in a direct message (the channel skips it: unusable-recipients.test.ts)',
      receiverId: BOB,
      recipients: [self, { id: BOB, encryptionPublicKey: 'junk' }],
      users: [user(ALICE, 'alice'), user(BOB, 'bob', { encryptionPublicKey: 'junk' })],
      refused: /key of bob is not a usable key/,
    },
    {
      name: 'a key that is not even base64, in a direct message (the channel skips it: unusable-recipients.test.ts)',
      receiverId: BOB,
      recipients: [self, { id: BOB, encryptionPublicKey: 'junk!' }],
      users: [user(ALICE, 'alice'), user(BOB, 'bob', { encryptionPublicKey: 'junk!' })],
      refused: /key of bob is not a usable key/,
    },
  ];

  it.each(rows)('$name: refused $refused', async (row) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const pins = new MemoryPinStore();
    if (row.pinnedBefore) await setup({ pins }).trust.check(row.pinnedBefore);
    const t = setup({ pins, ...(row.users ? { users: row.users } : {}), ...(row.late ? { late: row.late } : {}) });
    const outcome: unknown = await t.trust.checkRecipients(row.receiverId, row.recipients).then(
      () => null,
      (error: unknown) => error,
    );
    if (row.refused === null) {
      expect(outcome).toBeNull();
    } else {
      expect(outcome).toBeInstanceOf(RecipientKeyError);
      expect(String(outcome)).toMatch(row.refused);
    }
  });

  it('pins the recipients it meets for the first time', async () => {
    const t = setup();
    await t.trust.checkRecipients('all', [self, bob, carol]);
    expect((await t.pins.read(ALICE)).map((r) => r.contact).sort()).toEqual([BOB, CAROL]);
  });

  it('asks for a fresh member list only when a recipient is not in the cached one', async () => {
    const t = setup({ late: [user(DAVE, 'dave')] });
    await t.trust.checkRecipients('all', [self, bob]);
    expect(t.calls.fresh).toBe(0);
    await t.trust.checkRecipients('all', [self, bob, dave]);
    expect(t.calls.fresh).toBe(1);
  });

  it('lets a changed key through once the member accepted it', async () => {
    const pins = new MemoryPinStore();
    await setup({ pins }).trust.check([user(BOB, 'bob')]);
    const t = setup({ pins, users: [user(ALICE, 'alice'), bobWithNewKey] });
    const newBob = { id: BOB, encryptionPublicKey: 'enc-bob-2' };
    await expect(t.trust.checkRecipients('all', [self, newBob])).rejects.toThrow(RecipientKeyError);
    await t.trust.accept(BOB, fp(bobWithNewKey));
    await expect(t.trust.checkRecipients('all', [self, newBob])).resolves.toEqual({ recipients: [self, newBob], skipped: [] });
  });

  it('refuses everything when the pins cannot be read', async () => {
    const broken: PinStore = { read: () => Promise.reject(new Error('storage gone')), write: async () => undefined };
    const t = setup({ pins: broken });
    await expect(t.trust.checkRecipients('all', [self, bob])).rejects.toThrow(/storage gone/);
  });
});
