/**
 * The overload gate on its own (overload.ts): places per address, "degraded" only for the whole
 * gate's refusals, and a place given back even by a request whose client hung up before the gate
 * saw it. No database: a bare Fastify app with the gate's hook.
 */
import { once } from 'node:events';
import net from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerOverloadGate, WorkGate } from './overload';

describe('WorkGate', () => {
  it('gives one address at most a quarter of the places, and is degraded only when every place is taken or was refused', () => {
    const gate = new WorkGate(8, 60_000);
    expect(gate.perAddress).toBe(2);
    expect([gate.tryEnter('a'), gate.tryEnter('a'), gate.tryEnter('a')]).toEqual([true, true, false]);
    expect(gate.degraded()).toBe(false);
    for (const address of ['b', 'b', 'c', 'c', 'd', 'd']) expect(gate.tryEnter(address)).toBe(true);
    expect(gate.degraded()).toBe(true);
    gate.leave('d');
    // Every place but one taken, and none refused yet: not degraded.
    expect(gate.degraded()).toBe(false);
    expect(gate.tryEnter('e')).toBe(true);
    expect(gate.tryEnter('f')).toBe(false);
    gate.leave('e');
    // Refused a moment ago: degraded for degradedForMs, though a place is free again.
    expect(gate.degraded()).toBe(true);
    expect(gate.held).toBe(7);
  });

  it('gives back the place of a request whose client hung up before the gate took it', async () => {
    const gate = new WorkGate(4);
    const app = Fastify();
    // Runs first: the client is gone, and its response closed, by the time the gate's hook runs.
    app.addHook('preValidation', async (req, reply) => {
      req.raw.socket.destroy();
      if (!reply.raw.closed) await once(reply.raw, 'close');
    });
    registerOverloadGate(app, gate);
    let handled = 0;
    app.post('/api/x', async () => ({ handled: ++handled }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as net.AddressInfo;
      for (let i = 0; i < 6; i++) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.end('POST /api/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
        await once(socket, 'close');
      }
      await expect.poll(() => handled).toBe(6);
      expect(gate.held).toBe(0);
    } finally {
      await app.close();
    }
  });
});
