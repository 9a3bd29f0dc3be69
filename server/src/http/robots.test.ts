/**
 * A private network keeps search engines away: /robots.txt is plain text turning every crawler
 * away (never the app's page), the page itself says noindex, and every answer of the server,
 * page, file, API call, error or robots.txt, carries `X-Robots-Tag: noindex, nofollow`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCodes, errorResponseSchema, routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { makeDatabase, startServer, type TestServer } from '../testing/harness';

const noindex = 'noindex, nofollow';
/** The web app's real index.html, as the build copies it: what browsers and crawlers are served. */
const indexHtml = fs.readFileSync(fileURLToPath(new URL('../../../web/index.html', import.meta.url)), 'utf8');

let dist: string | undefined;
let database: Database | undefined;
let drop: (() => Promise<void>) | undefined;
let withApp: TestServer | undefined;
let apiOnly: TestServer | undefined;

beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-robots-'));
  fs.writeFileSync(path.join(dist, 'index.html'), indexHtml);
  ({ database, drop } = await makeDatabase('pglite'));
  withApp = await startServer(database, { config: { webDist: dist } });
  apiOnly = await startServer(database);
});
afterAll(async () => {
  await withApp?.close();
  await apiOnly?.close();
  await database?.close();
  await drop?.();
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
});

describe('/robots.txt', () => {
  it('is text/plain disallowing everything to every crawler, with or without a build', async () => {
    for (const server of [withApp!, apiOnly!]) {
      const res = await fetch(`${server.url}/robots.txt`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const lines = (await res.text()).split('\n');
      expect(lines).toContain('User-agent: *');
      expect(lines).toContain('Disallow: /');
      expect(res.headers.get('x-robots-tag')).toBe(noindex);
    }
  });

  it('answers HEAD too', async () => {
    const res = await fetch(`${withApp!.url}/robots.txt`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});

describe('X-Robots-Tag', () => {
  it('is on the app’s page, which also says noindex in its own head', async () => {
    for (const url of ['/', '/chat', '/p2p-network']) {
      const res = await fetch(`${withApp!.url}${url}`);
      expect(res.headers.get('content-type'), url).toMatch(/^text\/html/);
      expect(res.headers.get('x-robots-tag'), url).toBe(noindex);
      expect(await res.text(), url).toContain('<meta name="robots" content="noindex, nofollow" />');
    }
  });

  it('is on API answers, successes and refusals alike', async () => {
    const health = await fetch(`${withApp!.url}${routes.healthGet.path}`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-robots-tag')).toBe(noindex);

    const me = await fetch(`${withApp!.url}${routes.me.path}`);
    expect(me.status).toBe(401);
    expect(me.headers.get('x-robots-tag')).toBe(noindex);

    const missing = await fetch(`${withApp!.url}/api/nope`);
    expect(errorResponseSchema.parse(await missing.json()).code).toBe(errorCodes.notFound);
    expect(missing.headers.get('x-robots-tag')).toBe(noindex);
  });
});
