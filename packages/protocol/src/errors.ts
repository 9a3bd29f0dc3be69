import { z } from 'zod';

/** Every error answer: a human message (docs/spec.md §8's text where it gives one) and a code. */
export const errorResponseSchema = z.object({
  error: z.string(),
  code: z.string(),
});
/** The body of every refusal: `{error, code}`. */
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

/** Codes the client acts on; the rest only carry a message. */
export const errorCodes = {
  invalidRequest: 'invalid_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  rateLimited: 'rate_limited',
  keyInvalid: 'key_invalid',
  usernameTaken: 'username_taken',
  loginFailed: 'login_failed',
  banned: 'banned',
  wiped: 'wiped',
  /** The breach policy locked the account until the creator unlocks it. */
  locked: 'locked',
  /** The request's address is blocked by the creator. */
  ipBlocked: 'ip_blocked',
  /** The epoch was made for an older member set: rotate and resend (docs/security.md §4). */
  membershipChanged: 'membership_changed',
  /** (epochId, index) was already used. */
  replay: 'replay',
  /** What the request would make already exists, or would pass a bound of what exists (a group's members). */
  conflict: 'conflict',
  /** The server cannot serve this now (database away, instance draining): retry after `Retry-After`. */
  unavailable: 'unavailable',
  /** An upload over the size limit (413). */
  tooLarge: 'too_large',
  /** An upload that would take the member past their attachment quota (413). */
  quotaExceeded: 'quota_exceeded',
  /** A P2P node has no free slot (maxConnections reached). */
  nodeFull: 'node_full',
  /** A P2P node's host has no socket open: it cannot be joined now. */
  nodeOffline: 'node_offline',
} as const;
/** One of the codes of {@link errorCodes}. */
export type ErrorCode = (typeof errorCodes)[keyof typeof errorCodes];

/** Texts of the specification's error catalogue (docs/spec.md §8) that the server sends. */
export const errorTexts = {
  loginFailed: 'Invalid access token. Multiple failed attempts trigger automatic data wipe.',
  tooManyAttempts: 'Too many attempts. Access blocked for security.',
  wiped: 'Your account has been securely wiped due to security breaches. Create a new vault.',
  banned: 'This account has been banned from the network.',
  locked: 'This account is locked after a security report. The network creator can unlock it.',
  ipBlocked: 'Access from your network address is blocked.',
  keyUsed: 'This access key has already been used',
  /** Also the answer to a canary key, so that it cannot be told from one that does not exist. */
  keyUnknown: 'This access key is not valid',
  keyRevoked: 'This access key has been revoked',
  keyExpired: 'This access key has expired',
  keyMalformed: 'Please enter a valid 64-character access key',
  keyValid: 'This key is valid and unused. You can proceed with registration.',
  usernameTaken: 'Username may already exist or an error occurred',
  usernameReserved: 'This username is reserved',
  notSignedIn: 'Not signed in',
  messageTooLong: 'Message exceeds 500 characters',
  /** A message erased (deleted for everyone or expired): a reply's quote says so. */
  messageDeleted: 'Message deleted',
  attachmentTooLarge: 'File exceeds the 10 MB limit',
  registrationClosed: 'The network is in emergency mode: registration is closed',
  p2pSuspended: 'P2P networking is suspended while the network is in emergency mode',
} as const;
