/** Business constants shared by server and client (docs/spec.md §9). */
export const limits = {
  /** Access tokens and invite keys: 64 lowercase hex characters (32 random bytes). */
  tokenLength: 64,
  /** Minimum Shannon entropy, in bits per character, of an access token. */
  tokenMinEntropy: 3.5,
  /** Master key of the network creator: 128 lowercase hex characters. */
  masterKeyLength: 128,
  /** Chat message: at most 500 characters of plaintext. */
  messageMaxChars: 500,
  /**
   * Ceiling on the stored envelope. A text message (envelope v1, at most 1,516 bytes of
   * ciphertext) is about 2.2 KB of base64 and fields; a message body (v2, at most 8,208 bytes of
   * ciphertext) about 11.1 KB. Anything larger cannot be a real message.
   */
  envelopeMaxBytes: 12 * 1024,
  /** AES-GCM output for 500 UTF-16 code units: at most 1,500 UTF-8 bytes plus the 16-byte tag. */
  ciphertextMaxBytes: 500 * 3 + 16,
  /**
   * A structured message body (an attachment and its caption, envelope v2): at most this many
   * UTF-8 bytes of JSON, more than the largest body the schema admits (a 255-character name and a
   * 500-character caption of characters JSON escapes as six bytes each fit).
   */
  messageBodyMaxBytes: 8192,
  /** AES-GCM output of the largest message body: the body plus the 16-byte tag. */
  bodyCiphertextMaxBytes: 8192 + 16,
  /** An attachment: at most 10 MiB of plaintext (docs/spec.md §9). */
  attachmentMaxBytes: 10 * 1024 * 1024,
  /** What the server stores of the largest attachment: the plaintext plus the 16-byte GCM tag. */
  attachmentCiphertextMaxBytes: 10 * 1024 * 1024 + 16,
  /** A file name carried in the encrypted message body. */
  attachmentNameMaxChars: 255,
  /** Attachments one message links (the body carries one). */
  attachmentsPerMessage: 1,
  usernameMaxChars: 32,
  /** A sender starts a new epoch after this many messages (docs/security.md §4). */
  epochMaxMessages: 100,
  /** ...or after this long. */
  epochMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
  /** Messages per page of history. */
  historyPageSize: 50,
  historyMaxPageSize: 200,
  /** Sender-key share look-ups per request. */
  sharesMaxEpochs: 100,
  /** Members a single epoch can be wrapped for. */
  epochMaxRecipients: 10_000,
  /** Shares of the channel key per upload: a channel epoch for 100,000 members is 20 uploads of about 500 KB. */
  channelSharesPerUpload: 5000,
  /**
   * Members one `POST /api/users/lookup` names (about 40 KB of ids, under the default body limit):
   * a client missing more than this of the member list fetches it whole.
   */
  usersPerLookup: 1000,
  /** Members of a private group, its creator included. */
  groupMaxMembers: 1000,
  /** Groups one member may belong to. */
  groupsPerMember: 200,
  groupNameMaxChars: 64,
  /** Groups of up to this many members show read receipts; larger ones have none, like the channel. */
  readReceiptsMaxGroupMembers: 32,
  /**
   * Failed sign-ins (wrong tokens) per browser per window (docs/spec.md §5); the server also counts
   * them per address, up to loginFailuresPerAddress. Neither counts a right token, and the server
   * refuses one only past its generous cap on all sign-in requests per address (docs/security.md §9);
   * the browser's courtesy limit pauses every sign-in of that browser after 5 wrong tokens.
   */
  loginAttempts: 5,
  loginWindowMs: 60_000,
  loginFailuresPerAddress: 20,
  /** Key generation form (docs/spec.md §5). */
  keyQuantityMin: 1,
  keyQuantityMax: 1000,
  keyQuantityDefault: 10,
  /** Keys per page of the creator's key database (a network sells tens of thousands). */
  keyPageSize: 100,
  keyPageMaxSize: 500,
  keyExpirationDaysDefault: 365,
  /**
   * Disappearing-message timers a conversation may have, in seconds: off, 1 hour, 1 day, 1 week.
   * The server stamps each message with its expiry from the timer at the moment it stores it.
   */
  disappearingTimers: [0, 3600, 86_400, 604_800],
  /** Toasts: one visible, 5 s. */
  toastDurationMs: 5000,
  /** Connection check every 5 s. */
  healthCheckIntervalMs: 5000,
} as const;

/** Conversation id of the general channel. */
export const GENERAL_CONVERSATION = 'general';
