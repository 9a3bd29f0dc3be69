/**
 * Attachments as the web client sends and reads them, for the integration tests: encrypted in
 * "the browser" (@enclave/crypto), uploaded as raw bytes with the member's session cookie.
 */
import { decryptAttachment, encryptAttachment } from '@enclave/crypto';
import { routes, routeUrl, type AttachmentRef } from '@enclave/protocol';
import type { TestMember } from './member';

export type RawReply = { status: number; body: unknown; headers: Headers; bytes: Buffer };

async function raw(member: TestMember, path: string, init: RequestInit): Promise<RawReply> {
  const { url, headers } = member.socketTarget();
  const res = await fetch(url.replace(/^ws/, 'http').replace(/\/ws$/, '') + path, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let body: unknown = null;
  if (res.headers.get('content-type')?.startsWith('application/json')) body = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, body, headers: res.headers, bytes };
}

/** POST /api/attachments with these bytes (already ciphertext, or anything a test wants to try). */
export function uploadBytes(
  member: TestMember,
  receiverId: string,
  bytes: Uint8Array,
  contentType = 'application/octet-stream',
): Promise<RawReply> {
  return raw(member, routeUrl(routes.uploadAttachment, { query: { receiverId } }), {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
}

/** GET /api/attachments/:id. */
export function downloadBytes(member: TestMember, id: string): Promise<RawReply> {
  return raw(member, routeUrl(routes.downloadAttachment, { params: { id } }), { method: 'GET' });
}

/** Encrypts a file, uploads it and returns the reference its message carries (and the ciphertext sent). */
export async function uploadFile(
  member: TestMember,
  receiverId: string,
  file: { bytes: Uint8Array<ArrayBuffer>; name: string; type: string },
): Promise<{ attachment: AttachmentRef; ciphertext: Uint8Array }> {
  const encrypted = await encryptAttachment(file.bytes);
  const reply = await uploadBytes(member, receiverId, encrypted.ciphertext);
  if (reply.status !== 201) throw new Error(`upload answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const { id } = routes.uploadAttachment.response.parse(reply.body);
  const attachment = {
    id,
    key: encrypted.key,
    iv: encrypted.iv,
    sha256: encrypted.sha256,
    name: file.name,
    type: file.type,
    size: file.bytes.length,
  };
  return { attachment, ciphertext: encrypted.ciphertext };
}

/** Downloads, checks and decrypts an attachment as a receiver does. */
export async function openFile(member: TestMember, attachment: AttachmentRef): Promise<Uint8Array> {
  const reply = await downloadBytes(member, attachment.id);
  if (reply.status !== 200) throw new Error(`download answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return decryptAttachment({ ciphertext: new Uint8Array(reply.bytes), key: attachment.key, iv: attachment.iv, sha256: attachment.sha256 });
}
