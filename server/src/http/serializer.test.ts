/** Answers are checked against their route's response schema on the way out. */
import { z } from 'zod';
import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { registerErrorHandler } from './errors';
import { serve } from './routes';
import { serializerCompiler } from './serializer';

const item = z.object({ id: z.number(), name: z.string() });
const route = {
  method: 'GET',
  path: '/api/test',
  access: 'public',
  summary: 'test',
  status: 200,
  response: z.object({ items: z.array(item), total: z.number() }),
} as const;

async function answer(handlerResult: unknown): Promise<{ status: number; body: unknown; logged: string[] }> {
  const logged: string[] = [];
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  // The handler's result is what is under test, whatever its type.
  serve(app, route, async () => handlerResult as z.output<typeof route.response>);
  const res = await app.inject({ method: 'GET', url: '/api/test' });
  await app.close();
  return { status: res.statusCode, body: res.json(), logged };
}

describe('response serializer', () => {
  it('sends an answer that matches the schema', async () => {
    const ok = { items: [{ id: 1, name: 'a' }], total: 1 };
    expect(await answer(ok)).toMatchObject({ status: 200, body: ok, logged: [] });
  });

  it.each([
    ['a required field missing', { items: [{ id: 1 }], total: 1 }, /items.*0.*name|name/],
    ['a field of the wrong type', { items: [], total: '1' }, /total/],
    ['a field the schema does not declare', { items: [], total: 0, secret: 'x' }, /Unrecognized key.*secret/],
    ['an undeclared field deep inside', { items: [{ id: 1, name: 'a', token: 'x' }], total: 1 }, /Unrecognized key.*token/],
  ])('refuses %s: a 500, and the mismatch in the log', async (_name, result, why) => {
    const { status, body, logged } = await answer(result);
    expect(status).toBe(500);
    expect(body).toEqual({ error: 'Internal server error', code: 'internal' });
    expect(logged.join('\n')).toMatch(why);
    // Nothing of the refused answer leaves the server.
    expect(JSON.stringify(body)).not.toMatch(/secret|token/);
  });
});
