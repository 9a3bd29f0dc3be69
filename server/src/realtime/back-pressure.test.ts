/**
 * A socket that cannot keep up is closed with 1013 "try again later" once MAX_BUFFERED_BYTES are
 * queued for it, instead of the server buffering without limit; its client comes back and catches
 * up from history (web/src/net/socket.ts reconnects after any close). The others are not held up.
 */
import { closeCodes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { relaxedRateLimits } from '../testing/harness';
import { oneInstance } from '../testing/one-instance';
import { memoryBus } from './bus';
import { MAX_BUFFERED_BYTES } from './flow';

describe('back-pressure per socket', () => {
  const bus = memoryBus();
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits }, bus });

  it('closes a socket that stopped reading with 1013 and keeps sending to the others', async () => {
    const [slow, fast] = await suite.members('slow-reader', 'fast-reader');
    const [slowSocket, fastSocket] = [await slow.connect(), await fast.connect()];
    // The slow client stops reading: what the server sends piles up in the kernel, then in ws.
    slowSocket.ws.pause();
    const frame = { type: 'error' as const, message: 'x'.repeat(64 * 1024) };
    // Far more than the bound and whatever the kernel's buffers on loopback take.
    const count = Math.ceil((32 * 1024 * 1024) / frame.message.length);
    expect(count * frame.message.length).toBeGreaterThan(8 * MAX_BUFFERED_BYTES);
    // The server gives a closing socket CLOSE_WAIT_MS to answer before terminating it (1006): the
    // slow client reads again as soon as its close is under way, not after the whole burst, which
    // on a loaded machine takes longer than that.
    const closing = () => [...suite.server.app.app.websocketServer.clients].some((c) => c.readyState === c.CLOSING);
    for (let i = 0; i < count; i++) {
      await bus.publish({ kind: 'deliver', to: 'all', frame });
      if (slowSocket.ws.isPaused && closing()) slowSocket.ws.resume();
      // Client and server share this process: let the reading client read.
      await new Promise((r) => setImmediate(r));
    }
    slowSocket.ws.resume();

    expect((await slowSocket.closed).code).toBe(closeCodes.tryAgainLater);
    expect(slowSocket.frames.filter((f) => f.type === 'error').length).toBeLessThan(count);
    await expect.poll(() => fastSocket.frames.filter((f) => f.type === 'error').length).toBe(count);
    fastSocket.close();
  });
});
