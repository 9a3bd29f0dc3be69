import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RealtimeSocket } from '../../net/socket';
import { pingSocket } from './probes';

/** The part of a WebSocket the real-time client uses; the test plays the server. */
class ServerSide {
  readyState = 0;
  readonly sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(): void {
    this.readyState = 3;
  }

  reply(frame: object): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

function signedInSocket(): { socket: RealtimeSocket; server: ServerSide } {
  const server = new ServerSide();
  const socket = new RealtimeSocket({
    url: () => 'ws://enclave.test/ws',
    // The fake speaks the part of the WebSocket interface the client uses.
    createWebSocket: () => server as unknown as WebSocket,
    network: new EventTarget(),
    random: () => 0.5,
  });
  socket.start();
  server.readyState = 1;
  server.onopen?.();
  server.reply({ type: 'authenticated', userId: '00000000-0000-4000-8000-00000000000a' });
  return { socket, server };
}

describe('pingSocket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("measures the time to the server's pong", async () => {
    const { socket, server } = signedInSocket();
    const rtt = pingSocket(socket);
    expect(server.sent.at(-1)).toEqual({ type: 'ping' });
    vi.advanceTimersByTime(12);
    server.reply({ type: 'pong' });
    await expect(rtt).resolves.toBe(12);
    socket.stop();
  });

  it('fails, saying why, when the socket is not signed in', async () => {
    await expect(pingSocket(null)).rejects.toThrow(/not open and signed in \(it is not started\)/);
    const idle = new RealtimeSocket({ network: new EventTarget() });
    await expect(pingSocket(idle)).rejects.toThrow(/\(it is idle\)/);
  });

  it('fails when no pong comes within 5 s', async () => {
    const { socket } = signedInSocket();
    const rtt = pingSocket(socket);
    const failed = expect(rtt).rejects.toThrow('No pong within 5 s.');
    await vi.advanceTimersByTimeAsync(5_000);
    await failed;
    socket.stop();
  });
});
