/**
 * Test stand-ins for a browser and its vendor's push service: a browser's subscription keys
 * (ECDH P-256 and 16 authentication bytes), a local HTTPS server that records every push it is
 * sent, the VAPID check (RFC 8292) and the aes128gcm decryption (RFC 8291, RFC 8188) written here
 * with node:crypto, independently of the web-push library the server uses.
 */
import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** One push as the service received it. */
export type ReceivedPush = { path: string; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A browser's side of a subscription: the keys it hands over, and the private half that opens pushes. */
export class TestBrowser {
  readonly ecdh: ECDH = createECDH('prime256v1');
  readonly auth = randomBytes(16);
  constructor(readonly endpoint: string) {
    this.ecdh.generateKeys();
  }
  /** What `PushSubscription.toJSON()` gives, minus the expiration time. */
  get subscription() {
    return {
      endpoint: this.endpoint,
      keys: { p256dh: this.ecdh.getPublicKey().toString('base64url'), auth: this.auth.toString('base64url') },
    };
  }
  /** The plaintext of an aes128gcm push body (RFC 8291 §3.4, RFC 8188 §2), one record. */
  decrypt(body: Buffer): Buffer {
    const salt = body.subarray(0, 16);
    const idLength = body[20]!;
    const asPublic = body.subarray(21, 21 + idLength);
    const ciphertext = body.subarray(21 + idLength);
    const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();
    const ecdhSecret = this.ecdh.computeSecret(asPublic);
    const uaPublic = this.ecdh.getPublicKey();
    // HKDF-Extract(auth, ecdh), then HKDF-Expand with "WebPush: info" || 0 || ua_public || as_public, one block.
    const prkKey = hmac(this.auth, ecdhSecret);
    const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic, Buffer.from([1])]));
    const prk = hmac(salt, ikm);
    const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
    const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 2, then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (padded[end] !== 2) throw new Error('not a final aes128gcm record');
    return padded.subarray(0, end);
  }
}

/**
 * Checks `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292 §3): the key is `publicKey`, the JWT
 * is ES256-signed by it, for this audience, unexpired, with a subject. Answers the JWT's claims.
 */
export function verifyVapid(header: string | undefined, publicKey: string, audience: string): Record<string, unknown> {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`not a VAPID authorization: ${header}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  if (k !== publicKey) throw new Error('the VAPID key is not the network’s');
  const [head, claims, signature] = jwt.split('.') as [string, string, string];
  const raw = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw new Error('the VAPID signature does not verify');
  if ((JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string }).alg !== 'ES256') throw new Error('not ES256');
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud?: string; exp?: number; sub?: string };
  if (payload.aud !== audience) throw new Error(`aud ${payload.aud} is not ${audience}`);
  if (!payload.exp || payload.exp * 1000 <= Date.now()) throw new Error('the VAPID token has expired');
  if (!payload.sub) throw new Error('the VAPID token names no subject');
  return payload;
}

/**
 * A local HTTPS push service with a self-signed certificate (its file is the server's
 * PUSH_ENDPOINT_CA). Answers 201, or the status set for a path; `next(path)` awaits a push.
 */
export class TestPushService {
  readonly received: ReceivedPush[] = [];
  readonly statusFor = new Map<string, number>();
  private waiters: { path: string; resolve: (p: ReceivedPush) => void }[] = [];
  private constructor(
    private readonly server: https.Server,
    readonly origin: string,
    readonly caFile: string,
    private readonly dir: string,
  ) {}

  static async start(): Promise<TestPushService> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-push-'));
    const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    // openssl is the only maker of an X.509 certificate at hand; one for 127.0.0.1, a day long.
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-keyout', keyFile, '-out', certFile, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const push = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        service.received.push(push);
        res.writeHead(service.statusFor.get(push.path) ?? 201).end();
        for (const w of service.waiters.filter((w) => w.path === push.path)) w.resolve(push);
        service.waiters = service.waiters.filter((w) => w.path !== push.path);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const service = new TestPushService(server, origin, certFile, dir);
    return service;
  }

  /** A new browser subscribed at a path of its own on this service. */
  browser(): TestBrowser {
    return new TestBrowser(`${this.origin}/push/${randomBytes(12).toString('hex')}`);
  }

  /** Pushes received at this endpoint so far. */
  pushesTo(endpoint: string): ReceivedPush[] {
    const p = new URL(endpoint).pathname;
    return this.received.filter((r) => r.path === p);
  }

  /** The first push this endpoint received, awaited if none came yet. */
  firstPush(endpoint: string): Promise<ReceivedPush> {
    const [first] = this.pushesTo(endpoint);
    if (first) return Promise.resolve(first);
    const p = new URL(endpoint).pathname;
    return new Promise((resolve) => this.waiters.push({ path: p, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
