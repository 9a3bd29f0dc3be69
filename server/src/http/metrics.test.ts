/**
 * Prometheus metrics on their own listener (METRICS_PORT): scraped before and after real traffic
 * (sign-ups and sign-ins, a send delivered to a socket, a rate-limited request), the counters
 * move by what happened; requests are labelled by route template, never by the URL sent. The
 * public port's `/metrics` is a JSON 404, even with the web app's fallback serving index.html.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { mintKeys } from '../keys/service';
import { backends, redisEnabled, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { twoInstances } from '../testing/two-instances';

/** The value of the series `name` whose labels include `labels` (0 when there is none yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    if (wanted.every((w) => (match[2] ?? '').includes(w))) return Number(match[3]);
  }
  return 0;
}

const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-metrics-web-'));
fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Enclave</title>');

describe.each(backends)('metrics on %s', (backend) => {
  const suite = oneInstance(backend, {
    config: {
      webDist,
      metrics: { port: 0, host: '127.0.0.1' },
      // One key check a minute: the second is refused with 429.
      rateLimits: { ...relaxedRateLimits, validateKey: { max: 1, windowMs: 60_000 } },
    },
  });
  const scrape = async () => {
    const res = await fetch(suite.server.app.metrics!.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('counts requests by route, logins, sends stored, frames delivered, sockets and refusals as they happen', async () => {
    const before = await scrape();
    const login = { method: 'POST', route: routes.login.path, status: '200' };
    expect(sample(before, 'enclave_http_requests_total', login)).toBe(0);

    const [alice, bob] = await suite.members('alice-metrics', 'bob-metrics');
    const socket = await bob.connect();
    expect((await alice.send(bob.id, 'counted')).status).toBe(201);
    await socket.waitFor((f) => f.type === 'chat_message');
    const missing = randomUUID();
    expect((await alice.request('GET', `/api/attachments/${missing}`)).status).toBe(404);
    const caller = new TestMember.Anonymous(suite.server.url);
    const check = { body: { inviteKey: 'not-a-key' } };
    await caller.attempt(routes.validateKey, check);
    expect((await caller.attempt(routes.validateKey, check)).status).toBe(429);

    const after = await scrape();
    expect(sample(after, 'enclave_http_requests_total', login)).toBe(2);
    expect(sample(after, 'enclave_http_request_duration_seconds_count', login)).toBe(2);
    expect(sample(after, 'enclave_messages_stored_total')).toBe(1);
    expect(sample(after, 'enclave_frames_delivered_total')).toBeGreaterThan(sample(before, 'enclave_frames_delivered_total'));
    expect(sample(after, 'enclave_sockets_open')).toBe(1);
    expect(sample(after, 'enclave_http_refusals_total', { status: '429', reason: 'rate_limit' })).toBe(1);
    // By the route's template: the id a client sent never becomes a label.
    expect(sample(after, 'enclave_http_requests_total', { route: routes.downloadAttachment.path, status: '404' })).toBe(1);
    expect(after).not.toContain(missing);
    expect(sample(after, 'enclave_work_max')).toBe(128);
    expect(after).toContain('enclave_work_in_flight');
    expect(after).toContain('nodejs_eventloop_lag_seconds');
    if (backend === 'postgres') expect(sample(after, 'enclave_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);

    socket.ws.close();
    await expect.poll(async () => sample(await scrape(), 'enclave_sockets_open')).toBe(0);
  });

  it('answers /metrics on the public port with a JSON 404, not the web app', async () => {
    const res = await fetch(`${suite.server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
    // The app's own routes still get index.html.
    expect((await fetch(`${suite.server.url}/chat`)).status).toBe(200);
  });

  it('serves nothing but /metrics on the metrics listener', async () => {
    const res = await fetch(suite.server.app.metrics!.url.replace('/metrics', '/api/health'));
    expect(res.status).toBe(404);
  });
});

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('metrics of two instances on the Redis bus', () => {
  const servers = twoInstances({ rateLimits: relaxedRateLimits, metrics: { port: 0, host: '127.0.0.1' } });

  it('times the bus: a message sent on A and delivered on B adds to A’s bus lag', async () => {
    const { a, b, database } = servers;
    const scrapeA = async () => (await fetch(a.app.metrics!.url)).text();
    const before = sample(await scrapeA(), 'enclave_bus_lag_seconds_count');
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const onA = await TestMember.join(a.url, k1!, 'lag-sender');
    const onB = await TestMember.join(b.url, k2!, 'lag-reader');
    const socket = await onB.connect();
    expect((await onA.send(onB.id, 'timed')).status).toBe(201);
    await socket.waitFor((f) => f.type === 'chat_message');
    const after = await scrapeA();
    expect(sample(after, 'enclave_bus_lag_seconds_count')).toBeGreaterThan(before);
    expect(sample(after, 'enclave_bus_lag_seconds_bucket', { le: '+Inf' })).toBe(sample(after, 'enclave_bus_lag_seconds_count'));
    socket.close();
  });
});
