import { FrameDispatcher } from '@enclave/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RealtimeSocket } from '../../net/socket';
import { PING_INTERVAL_MS } from '../../net/socket';
import { THROUGHPUT_CHUNK_BYTES } from './p2p-tests';
import { echoTimes, measureThroughput, pingSocket, STOPPED } from './probes';

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

/** The socket with its frames handed out through a dispatcher, as RealtimeProvider wires them. */
function wired(socket: RealtimeSocket) {
  const frames = new FrameDispatcher();
  socket.onFrame(frames.dispatch);
  return { socket, frames };
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
    const rtt = pingSocket(wired(socket));
    expect(server.sent.at(-1)).toEqual({ type: 'ping' });
    vi.advanceTimersByTime(12);
    server.reply({ type: 'pong' });
    await expect(rtt).resolves.toBe(12);
    socket.stop();
  });

  it("does not take the pong of the socket's own heartbeat for its own", async () => {
    const { socket, server } = signedInSocket();
    vi.advanceTimersByTime(PING_INTERVAL_MS);
    expect(socket.pingsInFlight).toBe(1);
    const rtt = pingSocket(wired(socket));
    vi.advanceTimersByTime(3);
    server.reply({ type: 'pong' }); // the heartbeat's: the server answers in order
    vi.advanceTimersByTime(9);
    server.reply({ type: 'pong' });
    await expect(rtt).resolves.toBe(12);
    expect(socket.pingsInFlight).toBe(0);
    socket.stop();
  });

  it('counts a heartbeat sent after its ping as behind it', async () => {
    const { socket, server } = signedInSocket();
    vi.advanceTimersByTime(PING_INTERVAL_MS - 2);
    const rtt = pingSocket(wired(socket));
    vi.advanceTimersByTime(7);
    expect(socket.pingsInFlight).toBe(2);
    server.reply({ type: 'pong' });
    await expect(rtt).resolves.toBe(7);
    socket.stop();
  });

  it('fails, saying why, when the socket is not signed in', async () => {
    await expect(pingSocket(null)).rejects.toThrow(/not open and signed in \(it is not started\)/);
    const idle = new RealtimeSocket({ network: new EventTarget() });
    await expect(pingSocket(wired(idle))).rejects.toThrow(/\(it is idle\)/);
  });

  it('fails when no pong comes within 5 s', async () => {
    const { socket } = signedInSocket();
    const rtt = pingSocket(wired(socket));
    const failed = expect(rtt).rejects.toThrow('No pong within 5 s.');
    await vi.advanceTimersByTimeAsync(5_000);
    await failed;
    socket.stop();
  });
});

/** The near end of a loop-back: sent data piles up in its buffer until the test drains it. */
class FakeChannel extends EventTarget {
  readyState: RTCDataChannelState = 'open';
  bufferedAmount = 0;
  bufferedAmountLowThreshold = 0;
  readonly sent: unknown[] = [];
  /** Listeners added and not removed yet (they are removed through their `signal`). */
  listening = 0;

  send(data: string | Uint8Array): void {
    this.sent.push(data);
    if (typeof data !== 'string') this.bufferedAmount += data.byteLength;
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    super.addEventListener(type, listener, options);
    this.listening += 1;
    if (typeof options === 'object') options.signal?.addEventListener('abort', () => (this.listening -= 1));
  }

  drain(): void {
    this.bufferedAmount = 0;
    this.dispatchEvent(new Event('bufferedamountlow'));
  }

  close(): void {
    this.readyState = 'closed';
    this.dispatchEvent(new Event('close'));
  }
}

const asChannel = (fake: FakeChannel) => fake as unknown as RTCDataChannel;

describe('loop-back probes', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves no listener behind when an echo does not come back', async () => {
    const channel = new FakeChannel();
    const failed = expect(echoTimes(asChannel(channel))).rejects.toThrow('Echo 1 did not come back within 5 s.');
    await vi.advanceTimersByTimeAsync(5_000);
    await failed;
    expect(channel.listening).toBe(0);
  });

  it('fails the transfer when the channel closes while it waits for the buffer to drain', async () => {
    const channel = new FakeChannel();
    const failed = expect(measureThroughput(asChannel(channel))).rejects.toThrow('The loop-back channel closed.');
    await vi.advanceTimersByTimeAsync(0);
    channel.close();
    await failed;
    expect(channel.listening).toBe(0);
  });

  it('stops sending once the transfer timed out', async () => {
    const channel = new FakeChannel();
    const failed = expect(measureThroughput(asChannel(channel))).rejects.toThrow('The transfer did not finish within 30 s.');
    await vi.advanceTimersByTimeAsync(30_000);
    await failed;
    const sent = channel.sent.length;
    channel.drain();
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.sent.length).toBe(sent);
    expect(channel.listening).toBe(0);
  });

  it('stops sending when the run is stopped', async () => {
    const channel = new FakeChannel();
    const stop = new AbortController();
    const failed = expect(measureThroughput(asChannel(channel), stop.signal)).rejects.toThrow(STOPPED);
    await vi.advanceTimersByTimeAsync(0);
    stop.abort();
    await failed;
    const sent = channel.sent.length;
    expect(sent * THROUGHPUT_CHUNK_BYTES).toBeLessThan(2 * 1024 * 1024);
    channel.drain();
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.sent.length).toBe(sent);
  });
});
