/**
 * Requests Node's HTTP parser refuses before any route is chosen still get our error shape,
 * `{error, code}` (found by the property tests: a URL over 16 KiB got Node's own body).
 */
import net from 'node:net';
import { errorCodes, errorResponseSchema } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { oneInstance } from '../testing/one-instance';

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function raw(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

describe('requests refused before routing', () => {
  const suite = oneInstance('pglite');

  it('answers 431 {error, code} to a URL past 16 KiB', async () => {
    const res = await fetch(`${suite.server.url}/api/keys/validate?x=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    const body = errorResponseSchema.parse(await res.json());
    expect(body.code).toBe(errorCodes.invalidRequest);
  });

  it('answers 400 {error, code} to a request line that is not HTTP', async () => {
    const { status, body } = parse(await raw(suite.server.url, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(status).toBe(400);
    expect(errorResponseSchema.parse(body).code).toBe(errorCodes.invalidRequest);
  });

  it('still serves the next request', async () => {
    expect((await fetch(`${suite.server.url}/api/health`, { method: 'HEAD' })).status).toBe(200);
  });
});
