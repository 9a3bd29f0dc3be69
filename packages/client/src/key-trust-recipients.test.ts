import type { PublicUser } from '@enclave/protocol';
import { MemoryPinStore } from './memory-pin-store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RecipientKeyError, type PinStore, type Recipient } from './key-trust';
import { ALICE, BOB, CAROL, DAVE, ALICE_KEYS, fp, bobWithNewKey, user, setup } from './key-trust-fakes';

afterEach(() => {
  vi.restoreAllMocks();
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
    {
      name: 'the channel, keys equal to their pins',
      receiverId: 'all',
      recipients: [self, bob, carol],
      pinnedBefore: [user(BOB, 'bob')],
      refused: null,
    },
    { name: 'a direct message to its two members', receiverId: BOB, recipients: [self, bob], refused: null },
    { name: 'only the member themselves', receiverId: 'all', recipients: [self], refused: null },
    {
      name: 'a member who joined a moment ago (not cached yet)',
      receiverId: 'all',
      recipients: [self, dave],
      late: [user(DAVE, 'dave')],
      refused: null,
    },
    {
      name: 'a changed key',
      receiverId: 'all',
      recipients: [self, { id: BOB, encryptionPublicKey: 'enc-bob-2' }],
      pinnedBefore: [user(BOB, 'bob')],
      users: [user(ALICE, 'alice'), bobWithNewKey],
      refused: /key of bob changed/,
    },
    {
      name: 'a key for the member that is not their own',
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

  it('fetches a recipient the cached member list lacks, and nothing when it has them all', async () => {
    const t = setup({ late: [user(DAVE, 'dave')] });
    await t.trust.checkRecipients('all', [self, bob]);
    expect(t.calls.fetches).toBe(0);
    await t.trust.checkRecipients('all', [self, bob, dave]);
    expect(t.calls.fetches).toBe(1);
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

describe('KeyTrust.checkShareRecipients', () => {
  const pending = (id: string, sharePublicKey = `share-${id}`) => ({ id, shareKey: { sharePublicKey, signature: `signed-${id}` } });

  it("hands each member's share key to the wrap with the signing key the list gives and the pin agrees with, pinning on first sight", async () => {
    const t = setup();
    expect(await t.trust.checkShareRecipients([pending(BOB), pending(CAROL)])).toEqual([
      { id: BOB, sharePublicKey: `share-${BOB}`, signature: `signed-${BOB}`, signingPublicKey: 'sig-bob' },
      { id: CAROL, sharePublicKey: `share-${CAROL}`, signature: `signed-${CAROL}`, signingPublicKey: 'sig-carol' },
    ]);
    expect((await t.pins.read(ALICE)).map((r) => r.contact)).toEqual([BOB, CAROL]);
    // Nothing is imported here: the wrap checks the signatures, in its workers.
    expect(t.calls.imports).toEqual([]);
  });

  it('reads the pins of a page of members only, and none again for members whose keys agreed before', async () => {
    const t = setup();
    const read = vi.spyOn(t.pins, 'read');
    await t.trust.checkShareRecipients([pending(BOB)]);
    expect(read.mock.calls).toEqual([[ALICE, [BOB]]]);
    expect(await t.trust.checkShareRecipients([pending(BOB)])).toHaveLength(1);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('refuses a member whose key changed, one the server does not list, one with malformed keys, and the member themselves', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const changed = setup();
    await changed.trust.check([user(BOB, 'bob')]);
    changed.setUsers([user(ALICE, 'alice'), bobWithNewKey]);
    await expect(changed.trust.checkShareRecipients([pending(BOB)])).rejects.toThrow(
      new RecipientKeyError('The key of bob changed: compare the safety number before sending.'),
    );
    const unknownKey = /unknown key for a member/;
    await expect(setup().trust.checkShareRecipients([pending(DAVE)])).rejects.toThrow(unknownKey);
    const malformed = setup({ users: [user(ALICE, 'alice'), user(BOB, 'bob', { encryptionPublicKey: 'not base64!' })] });
    await expect(malformed.trust.checkShareRecipients([pending(BOB)])).rejects.toThrow(unknownKey);
    await expect(setup().trust.checkShareRecipients([pending(ALICE)])).rejects.toThrow(/unknown key for your own account/);
  });

  it('fetches a member who joined since the list was cached', async () => {
    const t = setup({ late: [user(DAVE, 'dave')] });
    expect((await t.trust.checkShareRecipients([pending(DAVE)]))[0]?.signingPublicKey).toBe('sig-dave');
    expect(t.calls.fetches).toBe(1);
  });
});
