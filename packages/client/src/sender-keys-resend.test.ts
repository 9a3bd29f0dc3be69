/**
 * Resending after a failure that may have come after the server stored the message: the very same
 * request again (id, epoch, index, ciphertext), so that the server answers the stored message.
 */
import type { Epoch } from '@enclave/crypto';
import type { Message, SendMessageRequest } from '@enclave/protocol';
import { describe, expect, it, vi } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from './api-failure';
import { SenderKeys, type RecipientTrust, type SenderKeysCrypto } from './sender-keys';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';

class FakeApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`${status}: ${code}`);
  }
}

/** What can go wrong with one post: refused before storing, or stored and then the answer lost. */
type Failure = { when: 'before' | 'after'; error: FakeApiError };

function setup() {
  let version = 1;
  let encryptions = 0;
  let epochs = 0;
  let ids = 0;
  /** The server's messages, by client id as its unique index keeps them. */
  const stored = new Map<string, Message>();
  const posts: SendMessageRequest[] = [];
  const failures: Failure[] = [];

  const crypto: SenderKeysCrypto = {
    createEpoch: async ({ conversationId, senderId, membershipVersion, recipients }) => {
      epochs += 1;
      const epochId = `00000000-0000-4000-9000-${String(epochs).padStart(12, '0')}`;
      const epoch: Epoch = { epochId, conversationId, senderId, membershipVersion, chainKey: {} as CryptoKey };
      return { epoch, shares: recipients.map((r) => ({ recipientId: r.id, wrappedKey: 'w', signature: 's' })) };
    },
    // A fresh IV each time: encrypting again never gives the same ciphertext.
    encryptMessage: async ({ epoch, index, plaintext }) => `${epoch.epochId}/${index}/${plaintext}/iv${++encryptions}`,
  };
  const trust: RecipientTrust = { checkRecipients: async (_receiverId, recipients) => ({ recipients: [...recipients], skipped: [] }) };

  const keys = new SenderKeys({
    self: { id: ALICE, encryptionPublicKey: 'alice-key' },
    signKey: {} as CryptoKey,
    crypto,
    trust,
    newMessageId: () => `00000000-0000-4000-a000-${String(++ids).padStart(12, '0')}`,
    sendRetryDelaysMs: [0, 0],
    api: {
      conversationMembers: async () => ({
        conversationId: 'general',
        membershipVersion: version,
        members: [ALICE, BOB].map((id) => ({ id, encryptionPublicKey: `${id}-key` })),
      }),
      createEpoch: async () => undefined,
      sendMessage: async (request) => {
        posts.push(request);
        const failure = failures.shift();
        if (failure?.when === 'before') throw failure.error;
        const id = request.clientMessageId;
        if (!id) throw new Error('no client message id');
        const existing = stored.get(id);
        if (existing && existing.encryptedContent !== request.encryptedContent) throw new FakeApiError(409, 'replay');
        const message: Message = existing ?? {
          id: stored.size + 1,
          conversationId: 'general',
          senderId: ALICE,
          senderUsername: 'alice',
          epochId: request.epochId,
          index: request.index,
          encryptedContent: request.encryptedContent,
          timestamp: new Date(0).toISOString(),
          expiresAt: null,
          clientMessageId: request.clientMessageId ?? null,
          targetId: request.targetId ?? null,
        };
        stored.set(id, message);
        if (failure?.when === 'after') throw failure.error;
        return message;
      },
    },
  });
  return { keys, stored, posts, failures, setVersion: (v: number) => void (version = v) };
}

describe('SenderKeys resends', () => {
  it.each([
    ['no answer at all', new FakeApiError(0, 'network')],
    ['a 500', new FakeApiError(500, 'internal')],
    ['a 502 from the proxy', new FakeApiError(502, null)],
  ])('after %s once the message was stored, resends the very same request and gets the stored message', async (_name, error) => {
    const t = setup();
    t.failures.push({ when: 'after', error });
    const message = await t.keys.send('all', 'hello');
    expect(t.posts).toHaveLength(2);
    expect(t.posts[1]).toEqual(t.posts[0]);
    expect(t.posts[0]?.clientMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.stored.size).toBe(1);
    expect(message).toEqual([...t.stored.values()][0]);
    // The next message is another one: new id, next index.
    await t.keys.send('all', 'next');
    expect(t.posts[2]?.clientMessageId).not.toBe(t.posts[0]?.clientMessageId);
    expect(t.posts[2]?.index).toBe(1);
  });

  it('resends after a failure before storing too, and stops after its delays run out', async () => {
    const t = setup();
    t.failures.push({ when: 'before', error: new FakeApiError(503, null) });
    await t.keys.send('all', 'second time lucky');
    expect(t.posts).toHaveLength(2);
    expect(t.stored.size).toBe(1);

    const down = new FakeApiError(0, 'network');
    t.failures.push(...[1, 2, 3].map(() => ({ when: 'before' as const, error: down })));
    await expect(t.keys.send('all', 'never')).rejects.toBe(down);
    expect(t.posts).toHaveLength(5);
    expect(new Set(t.posts.slice(2).map((p) => JSON.stringify(p))).size).toBe(1);
  });

  it("retries a send that failed for good with that send's very request, stored once", async () => {
    const t = setup();
    const down = new FakeApiError(0, 'network');
    // Stored, but every answer lost: the member sees a failure and presses Retry.
    t.failures.push(...[1, 2, 3].map(() => ({ when: 'after' as const, error: down })));
    const id = t.keys.newMessageId();
    await expect(t.keys.send('all', 'stored without an answer', id)).rejects.toBe(down);
    const message = await t.keys.send('all', 'stored without an answer', id);
    expect(new Set(t.posts.map((p) => JSON.stringify(p))).size).toBe(1);
    expect(t.stored.size).toBe(1);
    expect(message).toEqual([...t.stored.values()][0]);
  });

  it.each([
    ['a 400', new FakeApiError(400, 'invalid_request')],
    ['a 403', new FakeApiError(403, 'forbidden')],
    ['a 409 replay', new FakeApiError(409, 'replay')],
    ['a 429', new FakeApiError(429, 'rate_limited')],
  ])('does not resend after %s', async (_name, error) => {
    const t = setup();
    t.failures.push({ when: 'before', error });
    await expect(t.keys.send('all', 'refused')).rejects.toBe(error);
    expect(t.posts).toHaveLength(1);
  });

  it('keeps the id when it rotates after membership_changed, the new epoch with a new ciphertext', async () => {
    const t = setup();
    await t.keys.send('all', 'first');
    t.setVersion(2);
    t.failures.push({ when: 'before', error: new FakeApiError(409, 'membership_changed') });
    await t.keys.send('all', 'second');
    const [refused, rotated] = t.posts.slice(1);
    expect(rotated?.clientMessageId).toBe(refused?.clientMessageId);
    expect(rotated?.epochId).not.toBe(refused?.epochId);
    expect(t.stored.size).toBe(2);
  });

  it("waits what a busy server's 503 asks (Retry-After) before resending, when longer than its own delay", async () => {
    vi.useFakeTimers();
    try {
      const t = setup();
      t.failures.push({ when: 'before', error: new FakeApiError(503, 'unavailable', 1000) });
      const sent = t.keys.send('all', 'later');
      await vi.advanceTimersByTimeAsync(999);
      expect(t.posts).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      await sent;
      expect(t.posts).toHaveLength(2);
      expect(t.stored.size).toBe(1);

      // A wait beyond reason is cut to MAX_RETRY_AFTER_MS.
      t.failures.push({ when: 'before', error: new FakeApiError(503, 'unavailable', 3_600_000) });
      const capped = t.keys.send('all', 'capped');
      await vi.advanceTimersByTimeAsync(MAX_RETRY_AFTER_MS);
      await capped;
      expect(t.posts).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs(' 5 ', now)).toBe(5000);
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs('-1', now)).toBeNull();
  });
});
