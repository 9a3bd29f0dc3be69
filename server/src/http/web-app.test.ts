/**
 * The built web app as browsers get it: pre-compressed files, hashed assets cached for good,
 * index.html revalidated on every load, API paths never answered with the app.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { errorCodes, errorResponseSchema, errorTexts } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { blockIp, unblockIp } from '../security/blocks';
import { creatorHeaders, makeDatabase, startServer, type TestServer } from '../testing/harness';

const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head><body></body></html>';
const appJs = `export const greeting = ${JSON.stringify('hello '.repeat(200))};\n`;
const swJs = `self.addEventListener('install', () => ${JSON.stringify('x'.repeat(200))});\n`;
const manifest = JSON.stringify({ name: 'Enclave', start_url: '/', display: 'standalone', description: 'x'.repeat(200) });

/** A build as web/vite-precompress.ts leaves it: each file with its .br and .gz beside it. */
function writeFakeDist(): string {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-web-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  const write = (name: string, text: string) => {
    const file = path.join(dist, name);
    fs.writeFileSync(file, text);
    fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(text));
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(text));
  };
  write('index.html', indexHtml);
  write('assets/app-abc123.js', appJs);
  write('sw.js', swJs);
  write('manifest.webmanifest', manifest);
  return dist;
}

let dist: string | undefined;
let database: Database | undefined;
let drop: (() => Promise<void>) | undefined;
let server: TestServer;

beforeAll(async () => {
  dist = writeFakeDist();
  ({ database, drop } = await makeDatabase('pglite'));
  server = await startServer(database, { config: { webDist: dist } });
});
afterAll(async () => {
  await server?.close();
  await database?.close();
  await drop?.();
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
});

// fetch decodes br and gzip itself: the bodies below are what the browser ends up with.
const get = (url: string, acceptEncoding = 'identity') => fetch(`${server.url}${url}`, { headers: { 'accept-encoding': acceptEncoding } });

describe('hashed assets', () => {
  it('sends the brotli file to a browser that accepts br', async () => {
    const res = await get('/assets/app-abc123.js', 'gzip, deflate, br');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(await res.text()).toBe(appJs);
  });

  it('sends the gzip file to a browser that accepts only gzip', async () => {
    const res = await get('/assets/app-abc123.js', 'gzip');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(await res.text()).toBe(appJs);
  });

  it('sends the file itself to a client that accepts no compression', async () => {
    const res = await get('/assets/app-abc123.js');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(await res.text()).toBe(appJs);
  });

  it('are cached for a year and never revalidated, compressed or not', async () => {
    for (const encoding of ['br', 'gzip', 'identity']) {
      const res = await get('/assets/app-abc123.js', encoding);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('answer a missing file with a 404, not with the app', async () => {
    const res = await get('/assets/app-gone99.js', 'br');
    expect(res.status).toBe(404);
    expect(errorResponseSchema.parse(await res.json()).code).toBe(errorCodes.notFound);
  });
});

describe('index.html', () => {
  it('is revalidated on every load, at / and at the app routes', async () => {
    for (const url of ['/', '/index.html', '/chat', '/super-admin?tab=keys']) {
      const res = await get(url, 'br');
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(/^text\/html/);
      expect(res.headers.get('content-encoding'), url).toBe('br');
      expect(res.headers.get('cache-control'), url).toBe('no-cache');
      expect(await res.text(), url).toBe(indexHtml);
    }
  });
});

describe('the installable app (web/vite-service-worker.ts, web/public/manifest.webmanifest)', () => {
  it('serves the service worker as JavaScript, revalidated on every load so a release replaces it', async () => {
    for (const encoding of ['br', 'identity']) {
      const res = await get('/sw.js', encoding);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toBe(swJs);
    }
  });

  it('serves the manifest as application/manifest+json', async () => {
    const res = await get('/manifest.webmanifest', 'br');
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    expect(await res.json()).toMatchObject({ name: 'Enclave' });
  });

  it("lets the page load its manifest and worker from its own origin only (CSP manifest-src, worker-src 'self')", async () => {
    const csp = (await get('/')).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("manifest-src 'self'");
    expect(csp).toContain("worker-src 'self'");
  });
});

describe('unknown API paths', () => {
  it('get the JSON 404, never the app', async () => {
    const res = await get('/api/nope', 'br');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(errorResponseSchema.parse(await res.json())).toEqual({ error: 'No route GET /api/nope', code: errorCodes.notFound });
  });

  it('and so do other methods than GET on app routes', async () => {
    const res = await fetch(`${server.url}/chat`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(errorResponseSchema.parse(await res.json()).code).toBe(errorCodes.notFound);
  });
});

describe('a blocked address (docs/security.md §10: strict, the master key excepted)', () => {
  it('gets 403 ip_blocked for the app, its files and the API; the master key is served everything', async () => {
    // This test's own address is the one blocked, for this test only.
    await blockIp(database!.db, '127.0.0.1', 'web app test', null);
    await server.app.blocks.reload();
    try {
      for (const url of ['/', '/chat', '/assets/app-abc123.js', '/api/nope']) {
        const res = await get(url);
        expect(res.status, url).toBe(403);
        expect(await res.json(), url).toEqual({ error: errorTexts.ipBlocked, code: errorCodes.ipBlocked });
        // Refusals carry the security headers too.
        expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      }
      const withKey = (url: string) => fetch(`${server.url}${url}`, { headers: { ...creatorHeaders, 'accept-encoding': 'identity' } });
      expect(await (await withKey('/')).text()).toBe(indexHtml);
      expect((await withKey('/assets/app-abc123.js')).status).toBe(200);
    } finally {
      await unblockIp(database!.db, '127.0.0.1');
      await server.app.blocks.reload();
    }
    expect((await get('/')).status).toBe(200);
  });
});
