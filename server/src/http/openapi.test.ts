/**
 * The route table, the routes the server really registers and the OpenAPI document it publishes
 * are one and the same list.
 */
import { routeKey, routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import rootPackage from '../../../package.json' with { type: 'json' };
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

const tableKeys = Object.values(routes).map(routeKey).sort();

/**
 * `METHOD /path` of every operation in an OpenAPI document, path parameters back in Fastify syntax
 * (`{name}` → `:name`, the rest of the path `{*}` → `*`).
 */
function documentKeys(doc: { paths: Record<string, unknown> }): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1').replace(/\{\*\}$/, '*')}`),
    )
    .sort();
}

describe.each([false, true])('OpenAPI document (production: %s)', (production) => {
  const suite = oneInstance('pglite', { config: { production } });

  // Development-only routes do not exist in production (routes.generateTestKeys).
  const expected = production ? tableKeys.filter((k) => k !== routeKey(routes.generateTestKeys)) : tableKeys;

  it('registers every route of the table, and no other API route', () => {
    const app = suite.server.app.app;
    for (const route of Object.values(routes)) {
      expect(app.hasRoute({ method: route.method, url: route.path }), routeKey(route)).toBe(expected.includes(routeKey(route)));
    }
  });

  it('lists exactly the registered routes at /api/openapi.json, with their schemas', async () => {
    const doc = await new TestMember.Anonymous(suite.server.url).call(routes.openApi, {});
    expect(documentKeys(doc)).toEqual(expected);
    const login = (doc.paths[routes.login.path] as Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>).post;
    expect(login?.requestBody).toBeDefined();
    expect(Object.keys(login?.responses ?? {})).toEqual(expect.arrayContaining(['200', '4XX']));
  });

  it('answers /api/health to HEAD and to GET (load balancers), GET with the release and commit', async () => {
    const anyone = new TestMember.Anonymous(suite.server.url);
    expect((await anyone.attempt(routes.health, {})).status).toBe(200);
    // Run from the sources, not a build: the commit is not known.
    expect(await anyone.call(routes.healthGet, {})).toEqual({ ok: true, version: rootPackage.version, commit: 'unknown' });
  });
});
