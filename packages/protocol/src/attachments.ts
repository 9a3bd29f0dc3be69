/**
 * Encrypted attachments: the upload and download routes' schemas, and the message body that
 * carries an attachment's key (docs/security.md §14). The server stores only the ciphertext; the
 * key, the file's name, type and size travel inside the end-to-end encrypted message.
 */
import { z } from 'zod';
import { limits } from './limits';
import { attachmentIdSchema, base64Bytes, receiverIdSchema } from './primitives';

/** `POST /api/attachments?receiverId=…`: the conversation the file is for, declared at upload. */
export const uploadAttachmentQuerySchema = z.strictObject({ receiverId: receiverIdSchema });

/** The stored attachment's id, which the sender lists in `attachmentIds` of the message that carries it. */
export const uploadAttachmentResponseSchema = z.object({
  id: attachmentIdSchema,
  /** Bytes of ciphertext stored. */
  size: z.number().int().positive(),
});
/** The answer of `POST /api/attachments`. */
export type UploadAttachmentResponse = z.infer<typeof uploadAttachmentResponseSchema>;

/** `GET /api/attachments/:id`: the attachment to download. */
export const attachmentParamsSchema = z.strictObject({ id: attachmentIdSchema });

/** Raw bytes on the wire (`application/octet-stream`): OpenAPI's binary string. */
export const binarySchema = z.string().meta({ format: 'binary', description: 'the attachment’s ciphertext (AES-256-GCM, tag appended)' });

/** Images the web app shows inline (after decryption and the hash check); anything else is a download. */
export const inlineImageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** What a receiver needs to fetch, check and open one attachment. */
export const attachmentRefSchema = z.strictObject({
  id: attachmentIdSchema,
  /** The file's own AES-256-GCM key, fresh for this file. */
  key: base64Bytes(32, 32),
  /** Its 12-byte nonce. */
  iv: base64Bytes(12, 12),
  /** SHA-256 of the ciphertext, checked before decrypting: a swapped blob is refused. */
  sha256: base64Bytes(32, 32),
  name: z.string().min(1).max(limits.attachmentNameMaxChars),
  /** MIME type as the sender's browser named it; only for display (inline images, download). */
  type: z
    .string()
    .max(127)
    .regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i, 'must be a MIME type'),
  /** Plaintext bytes. */
  size: z.number().int().nonnegative().max(limits.attachmentMaxBytes),
});
/** One attachment as the encrypted message body names it. */
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;

/** The reactions a member can add: a short set, so that a reaction never carries a message of its own. */
export const reactionEmojis = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;
/** One of {@link reactionEmojis}. */
export type ReactionEmoji = (typeof reactionEmojis)[number];

const replyTo = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * The plaintext of an envelope-v2 message, as JSON: an attachment and its caption (possibly empty),
 * a text that replies to another message (`replyTo`, never seen by the server), or an annotation
 * of the message the send's `targetId` names: a reaction or an edit's new text. Plain text
 * messages stay envelope v1 with the text itself as plaintext.
 */
export const messageBodySchema = z.union([
  z.strictObject({
    v: z.literal(2),
    attachment: attachmentRefSchema,
    caption: z.string().max(limits.messageMaxChars),
    replyTo: replyTo.optional(),
  }),
  z.strictObject({ v: z.literal(2), text: z.string().min(1).max(limits.messageMaxChars), replyTo }),
  z.strictObject({ v: z.literal(2), reaction: z.enum(reactionEmojis) }),
  z.strictObject({ v: z.literal(2), edit: z.string().trim().min(1).max(limits.messageMaxChars) }),
]);

/** What an annotation says of its target: a reaction, or the target's new text. */
export type Annotation = { kind: 'reaction'; emoji: ReactionEmoji } | { kind: 'edit'; text: string };

/**
 * A message as the member reads it: its text (or an attachment's caption), the attachment, the
 * message it replies to, if any; or, for an annotation, what it says (its text is then empty).
 */
export type MessageContent = { text: string; attachment?: AttachmentRef; replyTo?: number; annotation?: Annotation };

/** The envelope version and plaintext that carry a message's content (for `encryptMessage`). */
export type EncodedContent = { version: 1 | 2; plaintext: string };

/**
 * A message's plaintext: the text itself (v1), or the JSON body (v2) of an attachment and its
 * caption, a reply, or an annotation.
 *
 * @example
 * ```ts
 * const { version, plaintext } = encodeContent({ text: 'look', attachment });
 * ```
 */
export function encodeContent(content: MessageContent): EncodedContent {
  const body = bodyOf(content);
  return body ? { version: 2, plaintext: JSON.stringify(body) } : { version: 1, plaintext: content.text };
}

function bodyOf({ text, attachment, replyTo, annotation }: MessageContent): z.input<typeof messageBodySchema> | null {
  if (annotation?.kind === 'reaction') return { v: 2, reaction: annotation.emoji };
  if (annotation?.kind === 'edit') return { v: 2, edit: annotation.text };
  const reply = replyTo === undefined ? {} : { replyTo };
  if (attachment) return { v: 2, attachment, caption: text, ...reply };
  return replyTo === undefined ? null : { v: 2, text, replyTo };
}

/**
 * Reads a decrypted plaintext back, parsed like any input from outside: the sender may be
 * misbehaving.
 *
 * @throws Error when a v2 body is not JSON or not a {@link messageBodySchema}, or a text is over 500 characters.
 * @example
 * ```ts
 * const content = decodeContent(await decryptMessage({ ... }));
 * ```
 */
export function decodeContent({ version, plaintext }: EncodedContent): MessageContent {
  if (version === 1) {
    if (plaintext.length > limits.messageMaxChars) throw new Error('message exceeds 500 characters');
    return { text: plaintext };
  }
  const body = messageBodySchema.parse(JSON.parse(plaintext));
  if ('reaction' in body) return { text: '', annotation: { kind: 'reaction', emoji: body.reaction } };
  if ('edit' in body) return { text: '', annotation: { kind: 'edit', text: body.edit } };
  const reply = body.replyTo === undefined ? {} : { replyTo: body.replyTo };
  if ('text' in body) return { text: body.text, ...reply };
  return { text: body.caption, attachment: body.attachment, ...reply };
}
