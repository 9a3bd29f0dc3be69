/**
 * The route table, the routes the server really registers and the OpenAPI document it publishes
 * are one and the same list.
 */
import { routeKey, routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { makeDatabase, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';

const tableKeys = Object.values(routes).map(routeKey).sort();

/**
 * `METHOD /path` of every operation in an OpenAPI document, path parameters back in Fastify syntax
 * (`{name}` → `:name`, the rest of the path `{*}` → `*`).
 */
function documentKeys(doc: { paths: Record<string, unknown> }): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1').replace(/\{\*\}$/, '*')}`))
    .sort();
}

describe.each([false, true])('OpenAPI document (production: %s)', (production) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    server = await startServer(database, { config: { production } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  // Development-only routes do not exist in production (routes.generateTestKeys).
  const expected = production ? tableKeys.filter((k) => k !== routeKey(routes.generateTestKeys)) : tableKeys;

  it('registers every route of the table, and no other API route', () => {
    const app = server.app.app;
    for (const route of Object.values(routes)) {
      expect(app.hasRoute({ method: route.method, url: route.path }), routeKey(route)).toBe(expected.includes(routeKey(route)));
    }
  });

  it('lists exactly the registered routes at /api/openapi.json, with their schemas', async () => {
    const doc = await new TestMember.Anonymous(server.url).call(routes.openApi, {});
    expect(documentKeys(doc)).toEqual(expected);
    const login = (doc.paths[routes.login.path] as Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>).post;
    expect(login?.requestBody).toBeDefined();
    expect(Object.keys(login?.responses ?? {})).toEqual(expect.arrayContaining(['200', '4XX']));
  });

  it('answers /api/health to HEAD and to GET (load balancers)', async () => {
    const anyone = new TestMember.Anonymous(server.url);
    expect((await anyone.attempt(routes.health, {})).status).toBe(200);
    expect(await anyone.call(routes.healthGet, {})).toEqual({ ok: true });
  });
});
