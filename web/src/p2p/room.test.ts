import { KeyTrust, MemoryPinStore } from '@enclave/client';
import { listedMember } from '@enclave/client/testing';
import * as e2e from '@enclave/crypto';
import { limits, parseP2pRoomFrame, type P2pRoomFrame, type P2pRoomMemberFrame } from '@enclave/protocol';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RoomHost, type RoomChannel } from './room-host';
import { RoomMember } from './room-member';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const EPOCH = '00000000-0000-4000-8000-0000000000e1';

type Account = e2e.NewAccount;
const accounts = new Map<string, Account>();
const names: Record<string, string> = { [ALICE]: 'alice', [BOB]: 'bob', [CAROL]: 'carol' };

beforeAll(async () => {
  for (const id of [ALICE, BOB, CAROL]) accounts.set(id, await e2e.createAccount(e2e.generateAccessToken()));
});

/** A member with the real crypto and trust, over a member list of the three. */
function member(id: string, send: (frame: P2pRoomMemberFrame) => void): RoomMember {
  const account = accounts.get(id)!;
  const users = [...accounts].map(([uid, a]) => listedMember(uid, names[uid]!, a.publicIdentity));
  const members = { current: async () => users, fresh: async () => users, including: async () => users };
  const trust = new KeyTrust({
    self: { id, ...account.publicIdentity },
    pins: new MemoryPinStore(),
    members,
    crypto: { fingerprint: e2e.fingerprint, importPublicIdentity: e2e.importPublicIdentity },
  });
  return new RoomMember({
    self: { id, encryptionPublicKey: account.publicIdentity.encryptionPublicKey },
    roomId: 'p2p:node',
    signKey: account.privateIdentity.signKey,
    decryptKey: account.privateIdentity.decryptKey,
    trust,
    members,
    send,
    crypto: e2e,
    onChange: () => undefined,
  });
}

/** A frame off the wire; these tests put no hello on it. */
const frameOf = (data: string) => parseP2pRoomFrame(data) as P2pRoomMemberFrame;

/** Alice hosts; joiners' channels are wired through JSON, as a data channel carries them. */
function room() {
  const wire: string[] = [];
  const alice = member(ALICE, (frame) => host.send(frame));
  const host = new RoomHost(ALICE, (frame) => alice.receive(frame));
  const members = new Map<string, RoomMember>([[ALICE, alice]]);
  const join = (id: string) => {
    const joiner = member(id, (frame) => {
      const data = JSON.stringify(frame);
      wire.push(data);
      host.receive(id, frameOf(data));
    });
    members.set(id, joiner);
    const channel: RoomChannel = {
      send: (data) => {
        wire.push(data);
        joiner.receive(frameOf(data));
      },
    };
    host.join(id, channel);
    return joiner;
  };
  return { host, alice, join, members, wire };
}

const texts = (m: RoomMember) => m.entries.map((e) => (e.kind === 'message' ? `${names[e.senderId]}: ${e.text}` : `notice: ${e.text}`));

describe('RoomHost', () => {
  it('announces the roster, host first, with a growing version, to everyone on every change', () => {
    const delivered: P2pRoomFrame[] = [];
    const bobGot: string[] = [];
    const host = new RoomHost(ALICE, (f) => delivered.push(f));
    host.join(BOB, { send: (d) => bobGot.push(d) });
    host.join(CAROL, { send: () => undefined });
    host.leave(BOB);
    expect(delivered).toEqual([
      { type: 'roster', version: 0, members: [ALICE] },
      { type: 'roster', version: 1, members: [ALICE, BOB] },
      { type: 'roster', version: 2, members: [ALICE, BOB, CAROL] },
      { type: 'roster', version: 3, members: [ALICE, CAROL] },
    ]);
    expect(bobGot.map((d) => parseP2pRoomFrame(d))).toEqual([delivered[1], delivered[2]]);
  });

  it('relays a joiner’s frame to the others and the host, not back to them', () => {
    const delivered: P2pRoomFrame[] = [];
    const got = { [BOB]: [] as string[], [CAROL]: [] as string[] };
    const host = new RoomHost(ALICE, (f) => delivered.push(f));
    host.join(BOB, { send: (d) => got[BOB]!.push(d) });
    host.join(CAROL, { send: (d) => got[CAROL]!.push(d) });
    const frame: P2pRoomFrame = { type: 'message', senderId: BOB, epochId: EPOCH, index: 0, encryptedContent: 'x' };
    host.receive(BOB, frame);
    expect(delivered.at(-1)).toEqual(frame);
    expect(got[CAROL]!.at(-1)).toBe(JSON.stringify(frame));
    expect(got[BOB]!.map((d) => parseP2pRoomFrame(d)?.type)).not.toContain('message');
  });

  it('drops rosters from joiners, frames in another member’s name, and frames from strangers', () => {
    const delivered: P2pRoomFrame[] = [];
    const host = new RoomHost(ALICE, (f) => delivered.push(f));
    host.join(BOB, { send: () => undefined });
    const before = delivered.length;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    host.receive(BOB, { type: 'roster', version: 9, members: [BOB] });
    host.receive(BOB, { type: 'message', senderId: CAROL, epochId: EPOCH, index: 0, encryptedContent: 'x' });
    host.receive(CAROL, { type: 'message', senderId: CAROL, epochId: EPOCH, index: 0, encryptedContent: 'x' });
    warn.mockRestore();
    expect(delivered.length).toBe(before);
  });
});

describe('a room, end to end', () => {
  it('delivers messages both ways through the host, encrypted for the roster of the moment', async () => {
    const { alice, join, wire } = room();
    const bob = join(BOB);
    await bob.say('hello from bob');
    await vi.waitFor(() => expect(texts(alice)).toEqual(['bob: hello from bob']));
    await alice.say('alice answers');
    await vi.waitFor(() => expect(texts(bob)).toEqual(['bob: hello from bob', 'alice: alice answers']));

    // Carol joins: the next message is for the three, the earlier ones were never hers.
    const carol = join(CAROL);
    await bob.say('now for three');
    await vi.waitFor(() => expect(texts(carol)).toEqual(['bob: now for three']));
    await vi.waitFor(() => expect(texts(alice)).toContain('bob: now for three'));
    const last = carol.entries.at(-1);
    expect(last?.kind === 'message' && last.readers).toEqual([ALICE, BOB, CAROL]);
    await carol.say('carol here');
    await vi.waitFor(() => expect(texts(bob)).toContain('carol: carol here'));

    // Nothing on the channels is plaintext.
    for (const text of ['hello from bob', 'alice answers', 'now for three', 'carol here']) {
      expect(wire.some((d) => d.includes(text))).toBe(false);
    }
  });

  it('leaves a member who left out of the next epoch', async () => {
    const { host, join, wire } = room();
    const bob = join(BOB);
    join(CAROL);
    await bob.say('to both');
    host.leave(CAROL);
    await bob.say('without carol');
    // Bob's epochs, once each (the wire also holds the host's copies of them to Carol).
    const epochs = new Map(wire.map((d) => parseP2pRoomFrame(d)).flatMap((f) => (f?.type === 'epoch' ? [[f.epochId, f] as const] : [])));
    expect([...epochs.values()].map((f) => f.shares.map((s) => s.recipientId))).toEqual([
      [ALICE, BOB, CAROL],
      [ALICE, BOB],
    ]);
  });

  it('starts a new epoch after the chat’s limit of messages, and every message reads', async () => {
    const { alice, join, wire } = room();
    const bob = join(BOB);
    const count = limits.epochMaxMessages + 1;
    for (let i = 0; i < count; i++) await bob.say(`m${i}`);
    await vi.waitFor(() => expect(alice.entries).toHaveLength(count));
    expect(texts(alice).at(-1)).toBe(`bob: m${count - 1}`);
    const frames = wire.map((d) => parseP2pRoomFrame(d)!);
    const epochs = frames.flatMap((f) => (f.type === 'epoch' ? [f.epochId] : []));
    const messages = frames.flatMap((f) => (f.type === 'message' ? [f] : []));
    expect(epochs).toHaveLength(2);
    expect(messages.filter((m) => m.epochId === epochs[0]).map((m) => m.index)).toEqual([...Array(limits.epochMaxMessages).keys()]);
    expect(messages.filter((m) => m.epochId === epochs[1]).map((m) => m.index)).toEqual([0]);
  });

  it('does not send before the host announced the members', async () => {
    const sent: P2pRoomFrame[] = [];
    const bob = member(BOB, (frame) => sent.push(frame));
    await expect(bob.say('too early')).rejects.toThrow(/not announced/);
    expect(sent).toEqual([]);
  });

  it('shows a replayed message once, and a forged one as a notice', async () => {
    const { alice, join, wire } = room();
    const bob = join(BOB);
    await bob.say('only once');
    const message = wire.map((d) => parseP2pRoomFrame(d)).find((f) => f?.type === 'message')!;
    if (message.type !== 'message') throw new Error('no message on the wire');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    alice.receive(message);
    alice.receive({ ...message, index: 1 });
    await vi.waitFor(() => expect(texts(alice)).toEqual(['bob: only once', 'notice: sent a message that could not be opened']));
    expect(warn).toHaveBeenCalledWith('p2p: could not process a message frame', expect.objectContaining({ kind: 'bad_signature' }));
    warn.mockRestore();
  });

  it('shows a message it holds no key for as a notice, never as text', async () => {
    const { alice } = room();
    alice.receive({ type: 'message', senderId: BOB, epochId: EPOCH, index: 0, encryptedContent: 'not for alice' });
    await vi.waitFor(() =>
      expect(texts(alice)).toEqual(['notice: sent a message that was not encrypted for you (it was for the room before you joined)']),
    );
  });
});
