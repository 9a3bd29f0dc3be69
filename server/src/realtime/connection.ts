/**
 * A socket's connection and authentication: it authenticates with the session cookie it was
 * opened with (its `authenticate` frame carries no secret), once, before AUTH_DEADLINE_MS; its
 * frames are parsed here and routed by the frame table (dispatch.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientFrameSchema, closeCodes, type ServerFrame } from '@enclave/protocol';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Db } from '../db/client';
import { bannedOwner, resolveSession, SESSION_COOKIE, sha256Hex } from '../auth/sessions';
import { isDatabaseUnavailable } from '../db/client';
import { describeUnfit, unfitInput } from '../http/json-input';
import type { WorkGate } from '../http/overload';
import { eventTypes, recordEvent, type EventSource } from '../security/events';
import { eventHeaders } from '../security/ip-analysis';
import type { BusEvent } from './bus';
import type { FrameConnection, FrameDispatch } from './dispatch';
import { encode, sendText, socketTasks } from './flow';
import type { PresenceTracker } from './presence';
import { serverFrame } from './publish';

/**
 * Larger client frames are refused with an error frame; the socket stays open. Room for a P2P
 * signal's SDP (16 KiB of text, escaped as JSON) and its envelope.
 */
export const MAX_CLIENT_FRAME_BYTES = 40 * 1024;
/** A socket that has not authenticated by then is closed. */
const AUTH_DEADLINE_MS = 10_000;
/** Told to a socket whose session is over, found so on authenticating or after a bus gap. */
export const SESSION_HAS_ENDED = 'This session has ended.';

/**
 * An authenticated socket. `origin`: what the socket keeps of its upgrade request (its address,
 * for blocks made while the socket is open, and for the events it causes), not the request
 * itself. `expiresAt`: its session's end, in ms.
 */
export type Client = { socket: WebSocket; userId: string; sessionId: string; origin: EventSource; expiresAt: number };
export type EndSessions = Extract<BusEvent, { kind: 'end_sessions' }>;
/** An authentication reading its session, and the `end_sessions` (or `resync`) that came meanwhile. */
type PendingAuth = { sessionId: string; events: (EndSessions | { kind: 'resync' })[] };

/** What connections need of the gateway and the instance. */
export type ConnectionHost = {
  db: Db;
  log: FastifyBaseLogger;
  /** The instance's bound on database work in flight (http/overload.ts), shared with HTTP. */
  gate: WorkGate;
  frames: FrameDispatch;
  presence: PresenceTracker;
  /** From then on an `end_sessions` reaches the client. */
  track(client: Client): void;
  untrack(client: Client): void;
};

export class Connections {
  private readonly pendingAuths = new Set<PendingAuth>();
  /** Sockets not authenticated yet, and when they must have (ms). */
  private readonly unauthenticated = new Map<WebSocket, number>();

  constructor(private readonly host: ConnectionHost) {}

  /** An `end_sessions` or a `resync` from the bus, which authentications on their way must see (admit). */
  heard(event: EndSessions | { kind: 'resync' }): void {
    for (const pending of this.pendingAuths) pending.events.push(event);
  }

  /** Closes the sockets that did not authenticate in time. */
  closeLate(now: number): void {
    for (const [socket, deadline] of this.unauthenticated) {
      if (deadline <= now) socket.close(closeCodes.authFailed, 'authentication timeout');
    }
  }

  handle(socket: WebSocket, req: FastifyRequest): void {
    const { log, gate, db, presence } = this.host;
    releaseUpgrade(socket, req, log);
    // Read now, and the request let go: kept by the closures below for the socket's life, the
    // request (its logger, its parser's state) would be most of an idle socket's memory. Of its
    // headers the socket keeps what an event shows: not the cookie; its token serves the one
    // authentication attempt and is let go then.
    let token: string | undefined = req.cookies[SESSION_COOKIE];
    const origin: EventSource = { ip: req.ip, ips: req.ips, headers: eventHeaders(req.headers), log };
    let client: Client | null = null;
    // A socket attempts authentication once: repeats are ignored (each failure is a security event).
    let attempted = false;
    this.unauthenticated.set(socket, Date.now() + AUTH_DEADLINE_MS);
    const send = (frame: ServerFrame) => sendText(socket, encode(frame));

    const authenticate = (): void => {
      if (client) return send(serverFrame.authenticated(client.userId));
      if (attempted) return;
      attempted = true;
      const presented = token;
      token = undefined;
      if (!gate.tryEnter()) {
        // The client comes back after its back-off, as when the database is away.
        send(serverFrame.error('The server is busy, try again'));
        return socket.close(closeCodes.tryAgainLater, 'try again later');
      }
      this.admit(socket, presented, origin)
        .then(async (admitted) => {
          if (admitted === 'ended') {
            send(serverFrame.session_ended('revoked', SESSION_HAS_ENDED));
            return socket.close(closeCodes.sessionEnded, 'session ended');
          }
          if (admitted === 'gone') return;
          if (!admitted) {
            // A banned member still holding a revoked session's cookie is a banned access attempt.
            const banned = presented ? await bannedOwner(db, presented) : null;
            await recordEvent(
              db,
              origin,
              banned
                ? { type: eventTypes.bannedLogin, severity: 'medium', userId: banned, details: { channel: 'socket' } }
                : { type: eventTypes.socketAuthFailed, severity: 'low' },
            );
            send(serverFrame.auth_failed('Not signed in'));
            return socket.close(closeCodes.authFailed, 'auth failed');
          }
          client = admitted;
          this.unauthenticated.delete(socket);
          send(serverFrame.authenticated(client.userId));
          presence.changedHere(client.userId);
          await presence.loaded;
          sendText(socket, presence.snapshot());
        })
        .catch((err: unknown) => {
          // The session could not be checked: the client comes back after its back-off.
          const unavailable = isDatabaseUnavailable(err);
          log[unavailable ? 'warn' : 'error']({ err }, 'socket authentication failed');
          send(serverFrame.error('Authentication is unavailable, try again'));
          socket.close(unavailable ? closeCodes.tryAgainLater : closeCodes.internalError, 'try again later');
        })
        .finally(() => gate.leave());
    };
    const conn: FrameConnection = {
      send,
      member: () => client && { userId: client.userId, origin },
      authenticate,
      runTask: socketTasks(socket, gate, send),
    };

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      // Closing (by us after a failed authentication or the deadline, or by the client): nothing more is processed.
      if (socket.readyState !== socket.OPEN) return;
      if (isBinary || data.length > MAX_CLIENT_FRAME_BYTES) {
        return send(serverFrame.error(`Frames must be JSON text of at most ${MAX_CLIENT_FRAME_BYTES} bytes`));
      }
      let json: unknown;
      try {
        json = JSON.parse(data.toString('utf8'));
      } catch {
        return send(serverFrame.error('Frame is not valid JSON'));
      }
      // As every route's input (http/json-input.ts): text PostgreSQL refuses, or nesting too deep.
      const unfit = unfitInput(json);
      if (unfit) return send(serverFrame.error(describeUnfit(unfit, 'Frame', 'frame')));
      const frame = clientFrameSchema.safeParse(json);
      if (!frame.success) {
        return send(serverFrame.error(`Unknown or malformed frame: ${frame.error.issues[0]?.message ?? 'invalid'}`));
      }
      this.host.frames.dispatch(conn, frame.data);
    });

    socket.on('close', () => {
      this.unauthenticated.delete(socket);
      if (client) {
        this.host.untrack(client);
        client = null;
      }
    });
  }

  /**
   * Reads the live session behind a socket's cookie, once, and tracks the socket as its client
   * (from then on an `end_sessions` reaches it). An `end_sessions` for that session or member
   * that comes while the read is on its way may have been committed after the read looked, and a
   * `resync` meanwhile may stand for such an event lost: then, and only then, the session is read
   * again ('ended' if it is over). An event published before the read began was committed before
   * it too, and the read sees what it did. 'gone': the socket closed meanwhile.
   */
  private async admit(socket: WebSocket, token: string | undefined, origin: EventSource): Promise<Client | null | 'ended' | 'gone'> {
    if (!token) return null;
    const { db } = this.host;
    const pending: PendingAuth = { sessionId: sha256Hex(token), events: [] };
    this.pendingAuths.add(pending);
    try {
      let auth = await resolveSession(db, token);
      const userId = auth?.user.id ?? null;
      if (auth && pending.events.some((e) => e.kind === 'resync' || endsSession(e, pending.sessionId, userId))) {
        auth = await resolveSession(db, token);
        if (!auth) return 'ended';
      }
      if (!auth) return null;
      if (socket.readyState !== socket.OPEN) return 'gone';
      // Tracked before the watch ends: no event can fall between the two.
      const client: Client = { socket, userId: auth.user.id, sessionId: auth.sessionId, origin, expiresAt: auth.expiresAt.getTime() };
      this.host.track(client);
      return client;
    } finally {
      this.pendingAuths.delete(pending);
    }
  }
}

/** Whether an `end_sessions` ends this session (of this member, when known). */
function endsSession(event: EndSessions, sessionId: string, userId: string | null): boolean {
  return event.sessionId === sessionId || !!event.sessionIds?.includes(sessionId) || (userId !== null && !!event.userIds?.includes(userId));
}

/**
 * A client breaking the WebSocket protocol (say, a frame over maxPayload) is its own fault: noted
 * and dropped, without an error line any client could write at will.
 */
export function onSocketError(log: FastifyBaseLogger, err: Error, socket: WebSocket): void {
  const code = (err as { code?: unknown }).code;
  const clientFault = typeof code === 'string' && code.startsWith('WS_ERR_');
  log[clientFault ? 'info' : 'error']({ err }, 'websocket error');
  socket.terminate();
}

/**
 * Lets the upgrade request go, which @fastify/websocket would keep for as long as the socket lives
 * (more than half of an idle socket's memory): its 'error' listener holds the request and its
 * reply (replaced by one that holds neither, doing what the app's errorHandler does), and the
 * connection holds the response object it was given for the upgrade, never finished (detached).
 */
function releaseUpgrade(socket: WebSocket, req: FastifyRequest, log: FastifyBaseLogger): void {
  socket.removeAllListeners('error');
  socket.on('error', (err) => onSocketError(log, err, socket));
  const connection = req.raw.socket as Socket & { _httpMessage?: ServerResponse | null };
  connection._httpMessage?.detachSocket(connection);
}
