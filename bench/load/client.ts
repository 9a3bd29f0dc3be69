/**
 * The load client's sockets, the same against Enclave and the bare ceiling. They upgrade and
 * authenticate as the web app does (the session cookie with the upgrade, then an `authenticate`
 * frame) and then only count what arrives. Frames are read here from the TCP stream rather than
 * through `ws`: ws's client costs several µs a frame, which on a shared core capped the count at
 * ~20,000 frames/s, the ceiling's included; reading headers per chunk costs a fraction of that.
 * A chat frame is recognised by its first bytes and its message id read from its text, never
 * parsed whole. Server frames are unmasked and unfragmented (neither server fragments).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

const CHAT_PREFIX = Buffer.from('{"type":"chat_message"');
const PRESENCE_PREFIX = Buffer.from('{"type":"presence"');
const ID_KEY = Buffer.from('"id":');
const OP_TEXT = 1;
const OP_CLOSE = 8;

/** Every socket's frames, counted; arrivals (message id, time) kept while `recording`. */
export class Deliveries {
  chat = 0;
  presence = 0;
  other = 0;
  /** Bytes of the last chat frame (payload), to compare with the ceiling's. */
  chatFrameBytes = 0;
  recording = false;
  readonly ids: number[] = [];
  readonly times: number[] = [];
  /** Close codes of sockets the server closed, by code. */
  readonly closes = new Map<number, number>();

  onText(buf: Buffer, start: number, end: number): void {
    if (startsWith(buf, start, end, CHAT_PREFIX)) {
      this.chat += 1;
      this.chatFrameBytes = end - start;
      if (!this.recording) return;
      const at = buf.indexOf(ID_KEY, start);
      if (at < 0 || at >= end) return;
      let id = 0;
      for (let i = at + ID_KEY.length; i < end; i++) {
        const digit = buf[i]! - 48;
        if (digit < 0 || digit > 9) break;
        id = id * 10 + digit;
      }
      this.ids.push(id);
      this.times.push(performance.now());
    } else if (startsWith(buf, start, end, PRESENCE_PREFIX)) this.presence += 1;
    else this.other += 1;
  }
}

function startsWith(buf: Buffer, start: number, end: number, prefix: Buffer): boolean {
  return end - start >= prefix.length && buf.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
}

/** A client frame: text, masked as RFC 6455 requires of clients. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error('the load client sends short frames only');
  const mask = randomBytes(4);
  const frame = Buffer.alloc(6 + payload.length);
  frame[0] = 0x80 | OP_TEXT;
  frame[1] = 0x80 | payload.length;
  mask.copy(frame, 2);
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i]! ^ mask[i % 4]!;
  return frame;
}

export type LoadSocket = { close(): void };

/** Opens a socket, sends `authenticate`, resolves once answered `authenticated`. */
export function openSocket(target: { url: string; headers: Record<string, string> }, deliveries: Deliveries): Promise<LoadSocket> {
  const url = new URL(target.url);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      headers: {
        ...target.headers,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    req.once('response', (res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    req.once('error', reject);
    req.once('upgrade', (_res, socket: Socket, head: Buffer) => {
      let authenticated = false;
      let closeSeen = false;
      let closedByUs = false;
      let pending = head.length ? head : null;
      socket.setNoDelay(true);
      const onFrame = (op: number, buf: Buffer, start: number, end: number) => {
        if (op === OP_CLOSE) {
          const code = end - start >= 2 ? buf.readUInt16BE(start) : 1005;
          closeSeen = true;
          if (authenticated) deliveries.closes.set(code, (deliveries.closes.get(code) ?? 0) + 1);
          else reject(new Error(`closed with ${code} before authentication`));
          socket.destroy();
        } else if (op !== OP_TEXT) return;
        else if (authenticated) deliveries.onText(buf, start, end);
        else {
          const text = buf.toString('utf8', start, end);
          if (text.includes('"type":"authenticated"')) {
            authenticated = true;
            resolve({
              close: () => {
                closedByUs = true;
                socket.destroy();
              },
            });
          } else if (text.includes('"type":"auth_failed"')) reject(new Error(`authentication refused: ${text}`));
          else deliveries.onText(buf, start, end);
        }
      };
      const read = (chunk: Buffer) => {
        const buf = pending ? Buffer.concat([pending, chunk]) : chunk;
        let at = 0;
        while (buf.length - at >= 2) {
          const op = buf[at]! & 0x0f;
          let len = buf[at + 1]! & 0x7f;
          let headerBytes = 2;
          if (len === 126) {
            if (buf.length - at < 4) break;
            len = buf.readUInt16BE(at + 2);
            headerBytes = 4;
          } else if (len === 127) {
            if (buf.length - at < 10) break;
            len = Number(buf.readBigUInt64BE(at + 2));
            headerBytes = 10;
          }
          if (buf.length - at < headerBytes + len) break;
          onFrame(op, buf, at + headerBytes, at + headerBytes + len);
          at += headerBytes + len;
        }
        pending = at < buf.length ? buf.subarray(at) : null;
      };
      socket.on('data', read);
      socket.once('error', (err) => {
        if (!authenticated) reject(err);
      });
      socket.once('close', () => {
        if (!authenticated) reject(new Error('closed before authentication'));
        // Cut without a close frame (terminated), unless by us.
        else if (!closeSeen && !closedByUs) deliveries.closes.set(1006, (deliveries.closes.get(1006) ?? 0) + 1);
      });
      socket.write(clientFrame('{"type":"authenticate"}'));
      if (pending) {
        const first = pending;
        pending = null;
        read(first);
      }
    });
    req.end();
  });
}
