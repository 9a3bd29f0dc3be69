/**
 * Attachments in the browser (docs/security.md §14): a chosen file is encrypted here with a fresh
 * key, only its ciphertext is uploaded, and the key travels in the encrypted message. A received
 * one is downloaded, checked against its hash, decrypted in memory and shown from a `blob:` URL,
 * never written to browser storage.
 */
import { decryptAttachment, encryptAttachment } from '@enclave/crypto';
import { errorTexts, inlineImageTypes, limits, type AttachmentRef } from '@enclave/protocol';
import { downloadAttachment, uploadAttachment } from '../net/http';

/** The server refuses larger files too; this says so before anything is encrypted or sent. */
export function sizeRefusal(file: Pick<File, 'size'>): string | null {
  return file.size > limits.attachmentMaxBytes ? errorTexts.attachmentTooLarge : null;
}

/** Whether the page shows this type inline: the common raster formats, never SVG or HTML. */
export function isInlineImage(type: string): boolean {
  return (inlineImageTypes as readonly string[]).includes(type);
}

const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

/** The name and type a message may carry: control characters out, lengths within the schema. */
export function describeFile(file: Pick<File, 'name' | 'type'>): { name: string; type: string } {
  // Control characters (a newline in a name) would only confuse whoever reads it.
  // eslint-disable-next-line no-control-regex
  const name = file.name.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, limits.attachmentNameMaxChars) || 'file';
  const type = file.type.length <= 127 && MIME.test(file.type) ? file.type : 'application/octet-stream';
  return { name, type };
}

/** Encrypts and uploads a file for the conversation with `receiverId`; the reference goes into the message. */
export async function sendFile(file: File, receiverId: string): Promise<AttachmentRef> {
  const refusal = sizeRefusal(file);
  if (refusal) throw new Error(refusal);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const encrypted = await encryptAttachment(bytes);
  // The plaintext copy is not needed once encrypted.
  bytes.fill(0);
  const { id } = await uploadAttachment(receiverId, encrypted.ciphertext);
  return { id, key: encrypted.key, iv: encrypted.iv, sha256: encrypted.sha256, ...describeFile(file), size: file.size };
}

/**
 * Downloads, checks and decrypts an attachment into a Blob. Only inline image types keep their
 * type: anything else is `application/octet-stream`, so that a `blob:` URL (of this origin) can
 * never be rendered as HTML or script.
 */
export async function openFile(attachment: AttachmentRef): Promise<Blob> {
  const ciphertext = await downloadAttachment(attachment.id);
  const bytes = await decryptAttachment({ ciphertext, key: attachment.key, iv: attachment.iv, sha256: attachment.sha256 });
  return new Blob([bytes], { type: isInlineImage(attachment.type) ? attachment.type : 'application/octet-stream' });
}
