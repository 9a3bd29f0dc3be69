import type { Epoch, EpochShareUpload } from '@enclave/crypto';
import { limits } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import type { Recipient } from './key-trust';
import { SendingEpochs, type CreatedEpoch, type EpochTransport, type RecipientTrust, type SendingCrypto } from './sending-epochs';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const ROOM = 'p2p:node';

const keyOf = (id: string): Recipient => ({ id, encryptionPublicKey: `key-${id}` });

/** A refusal as the api carries it: the members moved between asking and uploading. */
const membershipChanged = () => Object.assign(new Error('409'), { status: 409, code: 'membership_changed' });

/** Alice's epochs over a transport whose members, version and uploads the test controls. */
function setup(options: { trust?: RecipientTrust } = {}) {
  let now = 1_000_000;
  let epochCounter = 0;
  const room = { version: 0, members: [ALICE, BOB] };
  const uploads: { epoch: Epoch; shares: EpochShareUpload[] }[] = [];
  const failUpload: Error[] = [];
  const created: CreatedEpoch[] = [];
  let asked = 0;
  const crypto: SendingCrypto = {
    createEpoch: async ({ conversationId, senderId, membershipVersion, recipients }) => {
      epochCounter += 1;
      const epoch: Epoch = { epochId: `epoch-${epochCounter}`, conversationId, senderId, membershipVersion, chainKey: {} as CryptoKey };
      return { epoch, shares: recipients.map((r) => ({ recipientId: r.id, wrappedKey: `w-${r.encryptionPublicKey}`, signature: 's' })) };
    },
    encryptMessage: async ({ epoch, index, plaintext, version = 1 }) => `${epoch.epochId}/${index}/v${version}/${plaintext}`,
  };
  const transport: EpochTransport = {
    receiverId: 'all',
    members: async () => {
      asked += 1;
      return { membershipVersion: room.version, recipients: room.members.map(keyOf) };
    },
    upload: (epoch, shares) => {
      const failure = failUpload.shift();
      if (failure) throw failure;
      uploads.push({ epoch, shares });
    },
  };
  const epochs = new SendingEpochs({
    self: { id: ALICE, encryptionPublicKey: 'alice-own-key' },
    signKey: {} as CryptoKey,
    crypto,
    trust: options.trust ?? { checkRecipients: async (_receiverId, recipients) => ({ recipients: [...recipients], skipped: [] }) },
    now: () => now,
    onEpochCreated: (epoch) => created.push(epoch),
  });
  return {
    epochs,
    room,
    uploads,
    failUpload,
    created,
    asked: () => asked,
    encrypt: (text = 'hi') => epochs.encrypt(ROOM, { text }, transport),
    advance: (ms: number) => void (now += ms),
  };
}

describe('SendingEpochs', () => {
  it('uploads an epoch at the members’ version for the first message, then takes its indexes in turn', async () => {
    const t = setup();
    const sent = [await t.encrypt('a'), await t.encrypt('b')];
    expect(sent.map((m) => [m.epoch.epochId, m.index, m.encryptedContent])).toEqual([
      ['epoch-1', 0, 'epoch-1/0/v1/a'],
      ['epoch-1', 1, 'epoch-1/1/v1/b'],
    ]);
    expect(t.uploads.map((u) => [u.epoch.membershipVersion, u.shares.map((s) => s.recipientId)])).toEqual([[0, [ALICE, BOB]]]);
  });

  it('wraps for the sender with their own key when the members leave them out', async () => {
    const t = setup();
    t.room.members = [BOB];
    await t.encrypt();
    expect(t.uploads[0]!.shares.map((s) => s.wrappedKey)).toEqual([`w-key-${BOB}`, 'w-alice-own-key']);
  });

  it('starts a new epoch when the membership version moves forward, not back', async () => {
    const t = setup();
    await t.encrypt();
    t.epochs.membershipChanged(ROOM, 0);
    await t.encrypt();
    expect(t.uploads).toHaveLength(1);
    t.room.version = 1;
    t.room.members = [ALICE, BOB, CAROL];
    t.epochs.membershipChanged(ROOM, 1);
    const next = await t.encrypt();
    expect(next.index).toBe(0);
    expect(t.uploads.map((u) => u.shares.map((s) => s.recipientId))).toEqual([
      [ALICE, BOB],
      [ALICE, BOB, CAROL],
    ]);
  });

  it('starts a new epoch after the message limit and after the age limit', async () => {
    const t = setup();
    for (let i = 0; i < limits.epochMaxMessages; i++) await t.encrypt();
    expect(t.uploads).toHaveLength(1);
    expect((await t.encrypt()).epoch.epochId).toBe('epoch-2');
    t.advance(limits.epochMaxAgeMs);
    expect((await t.encrypt()).epoch.epochId).toBe('epoch-3');
  });

  it('lets concurrent messages share one rotation and distinct indexes', async () => {
    const t = setup();
    const sent = await Promise.all([t.encrypt('a'), t.encrypt('b'), t.encrypt('c')]);
    expect(t.asked()).toBe(1);
    expect(new Set(sent.map((m) => m.epoch.epochId))).toEqual(new Set(['epoch-1']));
    expect(sent.map((m) => m.index).sort()).toEqual([0, 1, 2]);
  });

  it('asks for the members again once when the upload says they moved, and gives up on the second time', async () => {
    const t = setup();
    t.failUpload.push(membershipChanged());
    await t.encrypt();
    expect(t.asked()).toBe(2);
    expect(t.uploads.map((u) => u.epoch.epochId)).toEqual(['epoch-2']);

    const u = setup();
    u.failUpload.push(membershipChanged(), membershipChanged());
    await expect(u.encrypt()).rejects.toMatchObject({ code: 'membership_changed' });
    expect(u.created).toEqual([]);
  });

  it('keeps no epoch whose upload failed: the next message starts another', async () => {
    const t = setup();
    t.failUpload.push(new Error('channel closed'));
    await expect(t.encrypt()).rejects.toThrow('channel closed');
    await t.encrypt();
    expect(t.uploads.map((u) => u.epoch.epochId)).toEqual(['epoch-2']);
  });

  it('reports whom each epoch was wrapped for and whom the trust left out, and wraps nothing the trust refuses', async () => {
    const t = setup({
      trust: {
        checkRecipients: async (receiverId, recipients) => {
          expect(receiverId).toBe('all');
          return { recipients: recipients.filter((r) => r.id !== BOB), skipped: [{ id: BOB, username: 'bob' }] };
        },
      },
    });
    await t.encrypt();
    expect(t.created.map((c) => [c.conversationId, c.recipients.map((r) => r.id), c.skipped])).toEqual([
      [ROOM, [ALICE], [{ id: BOB, username: 'bob' }]],
    ]);

    const refused = setup({
      trust: {
        checkRecipients: async () => {
          throw new Error("bob's key changed");
        },
      },
    });
    await expect(refused.encrypt()).rejects.toThrow(/key changed/);
    expect(refused.uploads).toEqual([]);
  });
});
