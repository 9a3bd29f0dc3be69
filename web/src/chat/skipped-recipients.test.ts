import { FrameDispatcher, MemoryPinStore } from '@enclave/client';
import { createAccount, generateAccessToken } from '@enclave/crypto';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import type { Session } from '../auth/auth-context';
import { fakeCall, listedMember as listed, storedMessage, type RouteFakes } from '@enclave/client/testing';
import { createMemberClient } from '../realtime/member-client';
import { skippedWarning } from './skipped-recipients';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';

describe('members left out of an epoch', () => {
  it('are named in the chat warning of that conversation, and the message still goes out', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const [alice, bob] = await Promise.all([createAccount(generateAccessToken()), createAccount(generateAccessToken())]);
    // Carol's account predates the server's key check: her encryption key is random bytes.
    const junk = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(294))));
    const users = [
      listed(ALICE, 'alice', alice.publicIdentity),
      listed(BOB, 'bob', bob.publicIdentity),
      listed(CAROL, 'carol', { ...bob.publicIdentity, encryptionPublicKey: junk }),
    ];
    const uploads: string[][] = [];
    const api: RouteFakes = {
      users: async () => ({ users }),
      conversationMembers: async () => ({
        conversationId: 'general',
        membershipVersion: 1,
        members: users.map((u) => ({ id: u.id, encryptionPublicKey: u.encryptionPublicKey })),
      }),
      createEpoch: async ({ body }) => {
        uploads.push(body.shares.map((s) => s.recipientId));
        return { ok: true };
      },
      sendMessage: async ({ body: { epochId, index, encryptedContent } }) => ({
        message: storedMessage(1, { senderId: ALICE, senderUsername: 'alice', epochId, index, encryptedContent }),
      }),
      epochShares: async () => ({ shares: [] }),
      history: async () => ({ messages: [], events: [], disappearingSeconds: 0, hasMore: false, shares: [] }),
    };
    const session: Session = {
      user: { id: ALICE, username: 'alice', role: 'member', isCreatorAccount: false, joinedAt: '2026-01-01T00:00:00.000Z' },
      publicIdentity: alice.publicIdentity,
      privateIdentity: alice.privateIdentity,
    };
    const services = createMemberClient(session, new QueryClient(), new FrameDispatcher(), {
      call: fakeCall(api),
      pins: new MemoryPinStore(),
    });
    const changes = vi.fn();
    services.skipped.subscribe(changes);

    await services.senderKeys.send('all', 'hello');
    expect(uploads).toEqual([[ALICE, BOB]]);
    expect(services.skipped.of('general')).toEqual([{ id: CAROL, username: 'carol' }]);
    expect(changes).toHaveBeenCalledTimes(1);
    expect(skippedWarning(services.skipped.of('general'))).toMatch(/^carol has published keys this app cannot use/);
    expect(services.skipped.of(`dm:${ALICE}:${BOB}`)).toEqual([]);
  });

  it('are listed by name in one sentence', () => {
    expect(skippedWarning([])).toBeNull();
    expect(
      skippedWarning([
        { id: CAROL, username: 'carol' },
        { id: BOB, username: 'bob' },
        { id: ALICE, username: 'alice' },
      ]),
    ).toMatch(/^alice, bob and carol have published keys/);
  });
});
