/**
 * WebSocket close codes, both ends named once. The server's are what it closes a socket with;
 * `browserOffline` is the web app's own and is never sent by the server, so that a client reading
 * a close code cannot take one for the other (4000-4999 is for applications, RFC 6455 §7.4.2).
 */
export const closeCodes = {
  /** A normal closing: the client stopped, or gave up after an `auth_failed`. */
  normal: 1000,
  /** The server is shutting down: the client reconnects at once (to another instance, or this one restarted). */
  goingAway: 1001,
  /** "Policy violation": the socket's address was blocked (its session lives on). */
  addressBlocked: 1008,
  /** An unexpected failure while authenticating the socket. */
  internalError: 1011,
  /**
   * The session could not be checked (the database is unavailable, the server is busy), or the
   * socket fell too far behind: the client comes back after its back-off and catches up from history.
   */
  tryAgainLater: 1013,
  /** Client only: no pong came after a ping, the connection is taken as dead. */
  noPong: 4000,
  /** The socket's cookie names no live session, or it did not authenticate in time. */
  authFailed: 4001,
  /** The server ended the socket's session, after a `session_ended` frame. */
  sessionEnded: 4002,
  /** Client only: the browser went offline; the socket is closed rather than left to time out. */
  browserOffline: 4900,
} as const;
/** One of the close codes of {@link closeCodes}. */
export type CloseCode = (typeof closeCodes)[keyof typeof closeCodes];
