/** A WebSocket to /ws as the test member opens it: every frame parsed, kept, and waited for by match. */
import { serverFrameSchema, type ServerFrame } from '@enclave/protocol';
import WebSocket from 'ws';

export class TestSocket {
  readonly frames: ServerFrame[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number }>;
  private waiters: (() => void)[] = [];

  /**
   * `headers`: more upgrade headers (an X-Forwarded-For behind a trusted proxy); `dispatch`: where
   * each frame goes besides `frames` (a member's client).
   */
  constructor(url: string, cookie: string, wire: string[], headers: Record<string, string> = {}, dispatch?: (frame: ServerFrame) => void) {
    this.ws = new WebSocket(url, { headers: { ...headers, ...(cookie ? { cookie } : {}) } });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve({ code })));
    this.ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      wire.push(`ws< ${text}`);
      const frame = serverFrameSchema.parse(JSON.parse(text));
      this.frames.push(frame);
      dispatch?.(frame);
      for (const w of this.waiters) w();
    });
    this.ws.on('close', () => {
      for (const w of this.waiters) w();
    });
    const send = this.ws.send.bind(this.ws);
    this.send = (frame: unknown) => {
      const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
      wire.push(`ws> ${text}`);
      send(text);
    };
  }

  send: (frame: unknown) => void;

  /**
   * Resolves with the first frame (already received or coming) that matches; fails after `ms`, or
   * as soon as the socket is closed without one.
   */
  waitFor(match: (f: ServerFrame) => boolean, ms = 5000): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (this.ws.readyState === this.ws.CLOSED) {
          cleanup();
          reject(new Error(`socket closed before a matching frame; got ${JSON.stringify(this.frames)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames)}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      check();
    });
  }

  close(): void {
    this.ws.close();
  }
}
