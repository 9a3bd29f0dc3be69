/** Fakes for the real-time socket's tests: a WebSocket the test drives, a network and a page. */
import type { ServerFrame } from '@enclave/protocol';
import { RealtimeSocket, type SocketState } from './socket';

export const USER = '00000000-0000-4000-8000-00000000000a';

/** A WebSocket the test drives: it opens, speaks and drops when told to. */
export class FakeWebSocket {
  readyState = 0;
  readonly sent: unknown[] = [];
  closedWith: { code?: number; reason?: string } | null = null;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;

  constructor(readonly url: string) {}

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  /** The client closes: the close event follows a moment later, as in browsers. */
  close(code?: number, reason?: string): void {
    if (this.readyState >= 2) return;
    this.closedWith = { code, reason };
    this.readyState = 2;
    queueMicrotask(() => this.drop(code ?? 1005));
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  receive(frame: ServerFrame | string): void {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  /** The connection is gone: the server closed it with `code`, or the network dropped (1006). */
  drop(code = 1006): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

/** A page whose visibility the test sets. */
export class FakePage extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';

  show(): void {
    this.visibilityState = 'visible';
    this.dispatchEvent(new Event('visibilitychange'));
  }

  hide(): void {
    this.visibilityState = 'hidden';
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

/**
 * A socket on fakes. `random` spreads the back-off; 0.5 by default, so the fast delay is 625 ms
 * and the slow ones 1.5 s, 3 s, 6 s… (./backoff.ts). `null` keeps the socket's own (crypto).
 */
export function setup(random: (() => number) | null = () => 0.5) {
  const page = new FakePage();
  const sockets: FakeWebSocket[] = [];
  const network = new EventTarget();
  const socket = new RealtimeSocket({
    url: () => 'ws://enclave.test/ws',
    createWebSocket: (url) => {
      const ws = new FakeWebSocket(url);
      sockets.push(ws);
      // The fake speaks the part of the WebSocket interface the client uses.
      return ws as unknown as WebSocket;
    },
    network,
    page,
    ...(random ? { random } : {}),
  });
  const states: SocketState[] = [];
  socket.subscribeState((state) => states.push(state));
  const frames: ServerFrame[] = [];
  socket.onFrame((frame) => frames.push(frame));
  return {
    socket,
    sockets,
    network,
    page,
    states,
    frames,
    authentications: () => frames.filter((f) => f.type === 'authenticated').length,
    latest: () => sockets.at(-1)!,
    /** Opens the latest socket and lets the server accept the cookie. */
    authenticate: () => {
      const ws = sockets.at(-1)!;
      ws.open();
      ws.receive({ type: 'authenticated', userId: USER });
    },
  };
}
