/**
 * Uploads streamed (routes.ts, service.ts, store.ts): the declared Content-Length is checked
 * against the file limit and the member's remaining quota before a byte of the body is read, the
 * body goes to the store as it arrives, and a body that is not the length it declared leaves
 * nothing behind: no row, no file, no temporary file. Raw sockets, so that the test controls how
 * much of a body is sent and when.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { errorCodes, limits, routes, routeUrl } from '@enclave/protocol';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachments } from '../db/schema';
import { backends, relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

const MiB = 1024 * 1024;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-streaming-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** An upload over a raw socket: headers, then what the test writes; `answer` is all the server sent until it closed. */
function rawUpload(serverUrl: string, member: TestMember, receiverId: string, headers: Record<string, string | number>) {
  const { port } = new URL(serverUrl);
  const cookie = member.socketTarget().headers.cookie ?? '';
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  const firstLine = new Promise<string>((resolve) => {
    const check = () => (received.includes('\r\n\r\n') ? resolve(received) : socket.once('data', check));
    socket.once('data', check);
  });
  const lines = Object.entries({ host: `127.0.0.1:${port}`, cookie, 'content-type': 'application/octet-stream', ...headers }).map(
    ([k, v]) => `${k}: ${v}`,
  );
  socket.write(`POST ${routeUrl(routes.uploadAttachment, { query: { receiverId } })} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  return { socket, answer, firstLine, received: () => received };
}

describe.each(backends)('streamed attachment uploads (%s)', (backend) => {
  const suite = oneInstance(backend, {
    config: {
      dataDir,
      rateLimits: relaxedRateLimits,
      attachments: { store: { kind: 'local' }, quotaBytes: 12 * MiB, orphanAfterMs: 60 * 60 * 1000, sweepEveryMs: 10 * 60 * 1000 },
      // A body gets 3 s whatever its length.
      requestLimits: { bodyGraceMs: 3_000, minBodyBytesPerSecond: 1e9 },
    },
  });
  let alice: TestMember;
  let bob: TestMember;
  const stored = async () => {
    const [rows] = await suite.database.db.select({ n: count() }).from(attachments).where(eq(attachments.uploaderId, alice.id));
    const dir = path.join(dataDir, 'attachments');
    return { rows: rows?.n ?? 0, files: fs.existsSync(dir) ? fs.readdirSync(dir) : [] };
  };

  beforeAll(async () => {
    [alice, bob] = await suite.members('alice', 'bob');
  });

  it('stores a file of the largest size as it streams in, byte for byte', async () => {
    const bytes = randomBytes(limits.attachmentCiphertextMaxBytes);
    const upload = rawUpload(suite.server.url, alice, bob.id, { 'content-length': bytes.length });
    upload.socket.write(bytes);
    const head = await upload.firstLine;
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    upload.socket.destroy();
    const [row] = await suite.database.db.select().from(attachments).where(eq(attachments.uploaderId, alice.id));
    expect(row?.size).toBe(bytes.length);
    expect(Buffer.compare(fs.readFileSync(path.join(dataDir, 'attachments', row!.id)), bytes)).toBe(0);
    await suite.database.db.delete(attachments).where(eq(attachments.id, row!.id));
    fs.rmSync(path.join(dataDir, 'attachments', row!.id));
  });

  it('refuses an upload past the quota with 413 while the client still holds most of its body', async () => {
    // 12 MiB of quota: one full-size file fits, a second does not.
    const first = rawUpload(suite.server.url, alice, bob.id, { 'content-length': 10 * MiB });
    first.socket.write(randomBytes(10 * MiB));
    expect(await first.firstLine).toMatch(/^HTTP\/1\.1 201 /);
    first.socket.destroy();

    const second = rawUpload(suite.server.url, alice, bob.id, { 'content-length': 10 * MiB });
    // Only 64 KiB of the 10 MiB are sent: the answer comes all the same.
    second.socket.write(randomBytes(64 * 1024));
    const answer = await second.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: errorCodes.quotaExceeded });
    expect((await stored()).rows).toBe(1);

    // Over the file limit: refused on its declared length alone, before the quota is looked at.
    const tooBig = rawUpload(suite.server.url, alice, bob.id, { 'content-length': limits.attachmentCiphertextMaxBytes + 1 });
    expect(await tooBig.answer).toMatch(/^HTTP\/1\.1 413 [^]*"code":"too_large"/);
    await suite.database.db.delete(attachments).where(eq(attachments.uploaderId, alice.id));
    for (const name of (await stored()).files) fs.rmSync(path.join(dataDir, 'attachments', name));
  });

  it('keeps nothing of a body shorter than its Content-Length, whether the client hangs up or stalls', async () => {
    // Hangs up half-way, once the upload was accepted and is streaming to its file.
    const cut = rawUpload(suite.server.url, alice, bob.id, { 'content-length': 4 * MiB });
    cut.socket.write(randomBytes(2 * MiB));
    await expect.poll(async () => (await stored()).files.length, { timeout: 10_000 }).toBe(1);
    expect((await stored()).rows).toBe(1);
    cut.socket.end();
    await cut.answer;
    await expect.poll(stored, { timeout: 10_000 }).toEqual({ rows: 0, files: [] });

    // Stalls half-way: the body deadline answers 408, and the upload goes the same way.
    const stalled = rawUpload(suite.server.url, alice, bob.id, { 'content-length': 4 * MiB });
    stalled.socket.write(randomBytes(2 * MiB));
    expect(await stalled.answer).toMatch(/^HTTP\/1\.1 408 /);
    await expect.poll(stored, { timeout: 10_000 }).toEqual({ rows: 0, files: [] });
  });

  it('refuses a body without a declared length (chunked) before reading it', async () => {
    const chunked = rawUpload(suite.server.url, alice, bob.id, { 'transfer-encoding': 'chunked' });
    chunked.socket.write('10000\r\n');
    chunked.socket.write(randomBytes(0x10000));
    const answer = await chunked.firstLine;
    expect(answer).toMatch(/^HTTP\/1\.1 411 /);
    chunked.socket.destroy();
    expect(await stored()).toEqual({ rows: 0, files: [] });
  });
});
