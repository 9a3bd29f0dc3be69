/**
 * CSRF (docs/security.md §6): state changes and socket upgrades are taken only from the public
 * origin(s) — PUBLIC_ORIGIN when set (whatever Host a proxy passes on), otherwise the server's own
 * http://HOST:PORT and the host the request names.
 */
import http from 'node:http';
import { routes, SOCKET_PATH } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../config';
import type { Database } from '../db/client';
import { makeDatabase, startServer, type TestServer } from '../testing/harness';

/** A POST with exactly these headers (fetch would not let us set Host). */
function post(server: TestServer, path: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(path, server.url);
  const body = JSON.stringify({ inviteKey: 'a'.repeat(64) });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens /ws with these headers: 101 when upgraded, else the status of the refusal. */
function upgrade(server: TestServer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.url.replace(/^http/, 'ws') + SOCKET_PATH, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

describe('the Origin check', () => {
  let database: Database;
  let drop: () => Promise<void>;
  /** PUBLIC_ORIGIN unset. */
  let local: TestServer;
  /** PUBLIC_ORIGIN=https://chat.example.org, behind a proxy that passes its upstream's name as Host. */
  let proxied: TestServer;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    local = await startServer(database);
    proxied = await startServer(database, {
      config: { publicOrigins: loadConfig({ PUBLIC_ORIGIN: 'https://chat.example.org' }).publicOrigins },
    });
  });
  afterAll(async () => {
    await local?.close();
    await proxied?.close();
    await database?.close();
    await drop?.();
  });

  const path = routes.validateKey.path;

  it('refuses a cross-origin POST and socket upgrade', async () => {
    for (const server of [local, proxied]) {
      expect(await post(server, path, { origin: 'https://evil.example' })).toBe(403);
      expect(await upgrade(server, { origin: 'https://evil.example' })).toBe(403);
      expect(await post(server, path, { origin: 'null' })).toBe(403);
    }
  });

  it('without PUBLIC_ORIGIN, takes the origin of the host the request names (local development)', async () => {
    expect(await post(local, path, { origin: local.url })).toBe(200);
    expect(await upgrade(local, { origin: local.url })).toBe(101);
    // And requests without Origin (not from a browser) as before.
    expect(await post(local, path, {})).toBe(200);
  });

  it('with PUBLIC_ORIGIN set and another Host (a proxy that rewrites it), accepts a same-origin POST and upgrade', async () => {
    const headers = { origin: 'https://chat.example.org', host: '10.0.0.11:5000' };
    expect(await post(proxied, path, headers)).toBe(200);
    expect(await upgrade(proxied, headers)).toBe(101);
  });

  it('with PUBLIC_ORIGIN set, believes neither the Host header nor another scheme or port', async () => {
    expect(await post(proxied, path, { origin: 'http://10.0.0.11:5000', host: '10.0.0.11:5000' })).toBe(403);
    expect(await post(proxied, path, { origin: 'http://chat.example.org' })).toBe(403);
    expect(await post(proxied, path, { origin: 'https://chat.example.org:8443' })).toBe(403);
    expect(await upgrade(proxied, { origin: proxied.url })).toBe(403);
  });
});
