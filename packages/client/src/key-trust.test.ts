import { MemoryPinStore } from './memory-pin-store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KEY_CHANGED, type PinStore } from './key-trust';
import { ALICE, BOB, CAROL, DAVE, ALICE_KEYS, fp, bobWithNewKey, keyOf, user, setup } from './key-trust-fakes';

afterEach(() => {
  vi.restoreAllMocks();
});

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
