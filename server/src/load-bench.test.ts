/**
 * The load bench, short (bench/load/run.ts; `npm run bench:load` runs 1,000 members against the
 * production build): 40 members on a server started from these sources, then the bare ws ceiling,
 * with the same client, so that the bench cannot rot. It checks what must hold whatever the
 * machine — every acknowledged message reached every socket at the fixed rate, nothing refused,
 * the table printed — never the figures. On PostgreSQL and Redis, the same with two instances, half
 * the members on each: every message reaches the sockets of both.
 */
import { describe, expect, it } from 'vitest';
import { loadTable } from '../../bench/load/report';
import { runLoad, type LoadOptions } from '../../bench/load/run';
import { backends, POSTGRES_ADMIN_URL, REDIS_URL, redisEnabled } from './testing/harness';

// The timeouts only stop a hang: on two cores shared with other work a run takes 1-3 minutes.
const options: LoadOptions = {
  members: 40,
  senders: 8,
  rate: 20,
  seconds: 2,
  entry: 'source',
  pin: false,
  instances: 1,
  redisUrl: REDIS_URL,
  progress: () => undefined,
};

describe('load bench', () => {
  it('measures Enclave and the bare ws ceiling with the same client, every message delivered', { timeout: 300_000 }, async () => {
    const enclave = await runLoad('enclave', options);
    const bare = await runLoad('bare-ws', options);

    for (const r of [enclave, bare]) {
      expect(r.latency.sent).toBe(options.rate * options.seconds);
      expect(r.latency.missing).toBe(0);
      expect(r.saturation.refused).toBe(0);
      expect(r.saturation.deliveriesPerS).toBeGreaterThan(0);
      expect(r.closes).toEqual({});
    }
    // The chat frames are the same size, give or take a digit of the sender's name.
    expect(
      Math.abs(enclave.chatFrameBytes - bare.chatFrameBytes),
      `Enclave ${enclave.chatFrameBytes} bytes, bare ${bare.chatFrameBytes}`,
    ).toBeLessThanOrEqual(3);
    expect(loadTable(enclave, bare)).toContain('| sustained channel deliveries/s |');
  });
});

describe.runIf(backends.includes('postgres') && redisEnabled)('load bench on two instances (BENCH_INSTANCES=2)', () => {
  it('spreads the members over both and delivers every message to every socket, across instances', { timeout: 300_000 }, async () => {
    const r = await runLoad('enclave', { ...options, instances: 2, postgresUrl: POSTGRES_ADMIN_URL });
    expect(r.target).toBe('Enclave (PostgreSQL, 2 instances)');
    expect(r.latency.sent).toBe(options.rate * options.seconds);
    expect(r.latency.missing).toBe(0);
    expect(r.saturation.refused).toBe(0);
    expect(r.closes).toEqual({});
  });
});
