/**
 * The WebSocket gateway at /ws. A socket authenticates with the session cookie it was opened with
 * (its `authenticate` frame carries no secret), then receives the frames the bus routes to its member.
 *
 * An `authenticated` frame marks the point from which the socket gets every frame: the client
 * catches up from history on each one (web/src/chat/use-chat-realtime.ts). So besides answering
 * `authenticate`, the gateway sends it again after a `resync` from the bus (frames may have been
 * lost while Redis was away), and members fetch from the database what the bus missed.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { clientFrameSchema, closeCodes, SOCKET_PATH, type ServerFrame } from '@enclave/protocol';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Db } from '../db/client';
import { bannedOwner, liveSessionIds, resolveSession, SESSION_COOKIE, sha256Hex } from '../auth/sessions';
import { isDatabaseUnavailable } from '../db/client';
import { describeUnfit, unfitInput } from '../http/json-input';
import type { WorkGate } from '../http/overload';
import { eventTypes, recordEvent, type EventSource } from '../security/events';
import { eventHeaders } from '../security/ip-analysis';
import type { Bus, BusEvent } from './bus';
import { FrameDispatch, type FrameConnection } from './dispatch';
import { clearInstance, onlineElsewhere, onlineUserIds, PRESENCE_REFRESH_MS, syncPresence, writeSocketCounts } from './presence';
import { presence, sessionEndedFrame } from './publish';

/**
 * Larger client frames are refused with an error frame; the socket stays open. Room for a P2P
 * signal's SDP (16 KiB of text, escaped as JSON) and its envelope.
 */
export const MAX_CLIENT_FRAME_BYTES = 40 * 1024;
/** Told to a socket whose session is over, found so on authenticating or after a bus gap. */
const SESSION_HAS_ENDED = 'This session has ended.';
/** A socket that has not authenticated by then is closed. */
const AUTH_DEADLINE_MS = 10_000;

/**
 * How long a timed closing (endSessionsTimed) waits for the bus to bring the event back and for
 * the clients to answer the close; sockets still open then are terminated.
 */
const CLOSE_WAIT_MS = 2_000;
/**
 * Bytes a socket may have queued (ws's buffer and the kernel's unsent data) before it is dropped
 * with closeCodes.tryAgainLater instead of buffering without limit: a client that cannot keep up
 * (about 30 s of a busy channel) catches up from history when it comes back, as after any gap.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * Presence changes are written and announced once per tick: a thousand members coming online is
 * a few frames per socket, not a thousand, and a few batched writes, not one per socket.
 */
export const PRESENCE_TICK_MS = 250;

/**
 * How often sockets are checked for a session that has expired or an authentication deadline
 * passed: one timer for all of them, not one per socket. A socket outlives either by at most this.
 */
const EXPIRY_SWEEP_MS = 1_000;
/**
 * Frames of one socket that may be working on the database at once (P2P signals, typing); more
 * wait in a bounded queue (MAX_SOCKET_QUEUED), past which they are refused with an error frame.
 */
export const MAX_SOCKET_TASKS = 4;
/** Frames of one socket waiting for one of its MAX_SOCKET_TASKS places; more are refused. */
export const MAX_SOCKET_QUEUED = 32;

/**
 * `origin`: what the socket keeps of its upgrade request (its address, for blocks made while the
 * socket is open, and for the events it causes), not the request itself. `expiresAt`: its
 * session's end, in ms.
 */
type Client = { socket: WebSocket; userId: string; sessionId: string; origin: EventSource; expiresAt: number };
/** An authentication reading its session, and the `end_sessions` (or `resync`) that came meanwhile. */
type PendingAuth = { sessionId: string; events: (EndSessions | { kind: 'resync' })[] };
type EndSessions = Extract<BusEvent, { kind: 'end_sessions' }>;
/** Sockets this instance closed for a timed `end_sessions`, handed to the one waiting for them. */
type Timing = (closed: WebSocket[]) => void;

/** Registers the socket's route: every upgrade goes to the gateway. */
export async function socketRoute(app: FastifyInstance, { gateway }: { gateway: Gateway }): Promise<void> {
  app.get(SOCKET_PATH, { websocket: true }, (socket, req) => gateway.handleConnection(socket, req));
}

export class Gateway {
  readonly instanceId = randomUUID();
  /** Where features register the handlers of member frames (dispatch.ts). */
  readonly frames: FrameDispatch;
  private readonly clients = new Map<string, Set<Client>>();
  private readonly refreshTimer: NodeJS.Timeout;
  private readonly tickTimer: NodeJS.Timeout;
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly pendingAuths = new Set<PendingAuth>();
  /** Sockets not authenticated yet, and when they must have (ms). */
  private readonly unauthenticated = new Map<WebSocket, number>();
  /** Members whose sockets here changed in number since the last tick. */
  private readonly presenceChanged = new Set<string>();
  /** Members this instance last wrote as having a socket here. */
  private readonly presentHere = new Set<string>();
  /** Members online on any instance, as the presence frames on the bus (and each refresh) say. */
  private readonly online = new Set<string>();
  /** The `presence_snapshot` frame of `online`, encoded once until it changes. */
  private snapshot: Buffer | null = null;
  /** The first read of `online` from the database; snapshots wait for it. */
  private readonly onlineLoaded: Promise<void>;
  private readonly timings = new Map<string, Timing>();
  /** This instance's presence writes, one after another, so that an older count never lands last. */
  private presenceWrites: Promise<unknown> = Promise.resolve();
  /** Frames from the bus handed to sockets here, one per socket (the metrics: http/metrics.ts). */
  framesDelivered = 0;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
    /** The instance's bound on database work in flight (http/overload.ts), shared with HTTP. */
    private readonly gate: WorkGate,
  ) {
    this.frames = new FrameDispatch(log);
    bus.subscribe((event) => this.onBusEvent(event));
    this.refreshTimer = setInterval(() => {
      this.syncPresence()
        .then(() => this.reloadOnline())
        .catch((err: unknown) => log.warn({ err }, 'presence refresh failed'));
    }, PRESENCE_REFRESH_MS);
    this.refreshTimer.unref();
    this.tickTimer = setInterval(() => {
      this.flushPresence().catch((err: unknown) => log.warn({ err }, 'presence write failed'));
    }, PRESENCE_TICK_MS);
    this.tickTimer.unref();
    this.expiryTimer = setInterval(() => this.sweep(), EXPIRY_SWEEP_MS);
    this.expiryTimer.unref();
    // Until read, snapshots would show nobody: the next refresh tries again should this fail.
    this.onlineLoaded = this.reloadOnline().catch((err: unknown) => log.warn({ err }, 'could not read presence'));
  }

  /**
   * Sends news of something already committed to sockets on every instance. A failure is logged,
   * not thrown, so that what was stored is not answered as an error: the bus sends a `resync` once
   * it can, and members catch up from the database.
   */
  async publishCommitted(event: BusEvent): Promise<void> {
    try {
      await this.bus.publish(event);
    } catch (err) {
      this.log.error({ err, kind: event.kind }, 'could not publish on the bus after a commit');
    }
  }

  /**
   * Publishes an `end_sessions` just committed (a ban), and measures on this instance the time
   * from now until the sockets it holds for those sessions are closed (the close handshake done,
   * or the socket terminated after CLOSE_WAIT_MS). Sockets on other instances close in their own
   * time and are not counted. `socketsClosed` 0: there were none here (`ms` then says nothing of
   * closing a socket).
   */
  async endSessionsTimed(event: Omit<EndSessions, 'timingId'>): Promise<{ socketsClosed: number; ms: number }> {
    const start = performance.now();
    const timingId = randomUUID();
    const handled = new Promise<WebSocket[]>((resolve) => {
      this.timings.set(timingId, resolve);
      setTimeout(() => resolve([]), CLOSE_WAIT_MS).unref();
    });
    try {
      try {
        await this.bus.publish({ ...event, timingId });
      } catch (err) {
        // As publishCommitted: what was committed stands; the bus's resync closes those sockets once it can.
        this.log.error({ err, kind: event.kind }, 'could not publish on the bus after a commit');
        return { socketsClosed: 0, ms: 0 };
      }
      const closed = await handled;
      await Promise.all(closed.map((socket) => closedOrTerminated(socket, CLOSE_WAIT_MS)));
      return { socketsClosed: closed.length, ms: Math.round((performance.now() - start) * 10) / 10 };
    } finally {
      this.timings.delete(timingId);
    }
  }

  handleConnection(socket: WebSocket, req: FastifyRequest): void {
    releaseUpgrade(socket, req, this.log);
    // Read now, and the request let go: kept by the closures below for the socket's life, the
    // request (its logger, its parser's state) would be most of an idle socket's memory. Of its
    // headers the socket keeps what an event shows: not the cookie; its token serves the one
    // authentication attempt and is let go then.
    let token: string | undefined = req.cookies[SESSION_COOKIE];
    const origin: EventSource = { ip: req.ip, ips: req.ips, headers: eventHeaders(req.headers), log: this.log };
    let client: Client | null = null;
    // A socket attempts authentication once: repeats are ignored (each failure is a security event).
    let attempted = false;
    let tasks = 0;
    this.unauthenticated.set(socket, Date.now() + AUTH_DEADLINE_MS);
    const send = (frame: ServerFrame) => sendText(socket, encode(frame));
    // Frames that arrive together (a burst of ICE candidates, typing in two conversations) wait
    // their turn in a short queue; only past it is a frame refused.
    const waiting: Array<() => void> = [];
    /** Runs a signed-in member's frame within this socket's and this instance's bounds. */
    const runTask = (handle: () => Promise<void>, onError: (err: unknown) => void): void => {
      if (tasks >= MAX_SOCKET_TASKS && waiting.length < MAX_SOCKET_QUEUED) {
        waiting.push(() => runTask(handle, onError));
        return;
      }
      if (tasks >= MAX_SOCKET_TASKS || !this.gate.tryEnter()) return send({ type: 'error', message: 'Too busy for this frame, try again' });
      tasks += 1;
      handle()
        .catch(onError)
        .finally(() => {
          tasks -= 1;
          this.gate.leave();
          if (socket.readyState === socket.OPEN) waiting.shift()?.();
        });
    };

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      // Closing (by us after a failed authentication or the deadline, or by the client): nothing more is processed.
      if (socket.readyState !== socket.OPEN) return;
      if (isBinary || data.length > MAX_CLIENT_FRAME_BYTES) {
        return send({ type: 'error', message: `Frames must be JSON text of at most ${MAX_CLIENT_FRAME_BYTES} bytes` });
      }
      let json: unknown;
      try {
        json = JSON.parse(data.toString('utf8'));
      } catch {
        return send({ type: 'error', message: 'Frame is not valid JSON' });
      }
      // As every route's input (http/json-input.ts): text PostgreSQL refuses, or nesting too deep.
      const unfit = unfitInput(json);
      if (unfit) return send({ type: 'error', message: describeUnfit(unfit, 'Frame', 'frame') });
      const frame = clientFrameSchema.safeParse(json);
      if (!frame.success) {
        return send({ type: 'error', message: `Unknown or malformed frame: ${frame.error.issues[0]?.message ?? 'invalid'}` });
      }
      this.frames.dispatch(conn, frame.data);
    });

    const authenticate = (): void => {
      if (client) return send({ type: 'authenticated', userId: client.userId });
      if (attempted) return;
      attempted = true;
      const presented = token;
      token = undefined;
      if (!this.gate.tryEnter()) {
        // The client comes back after its back-off, as when the database is away.
        send({ type: 'error', message: 'The server is busy, try again' });
        return socket.close(closeCodes.tryAgainLater, 'try again later');
      }
      this.admit(socket, presented, origin)
        .then(async (admitted) => {
          if (admitted === 'ended') {
            send(sessionEndedFrame('revoked', SESSION_HAS_ENDED));
            return socket.close(closeCodes.sessionEnded, 'session ended');
          }
          if (admitted === 'gone') return;
          if (!admitted) {
            // A banned member still holding a revoked session's cookie is a banned access attempt.
            const banned = presented ? await bannedOwner(this.db, presented) : null;
            await recordEvent(
              this.db,
              origin,
              banned
                ? { type: eventTypes.bannedLogin, severity: 'medium', userId: banned, details: { channel: 'socket' } }
                : { type: eventTypes.socketAuthFailed, severity: 'low' },
            );
            send({ type: 'auth_failed', message: 'Not signed in' });
            return socket.close(closeCodes.authFailed, 'auth failed');
          }
          client = admitted;
          this.unauthenticated.delete(socket);
          send({ type: 'authenticated', userId: client.userId });
          this.presenceChanged.add(client.userId);
          await this.onlineLoaded;
          sendText(socket, this.presenceSnapshot());
        })
        .catch((err: unknown) => {
          // The session could not be checked: the client comes back after its back-off.
          const unavailable = isDatabaseUnavailable(err);
          this.log[unavailable ? 'warn' : 'error']({ err }, 'socket authentication failed');
          send({ type: 'error', message: 'Authentication is unavailable, try again' });
          socket.close(unavailable ? closeCodes.tryAgainLater : closeCodes.internalError, 'try again later');
        })
        .finally(() => this.gate.leave());
    };
    const conn: FrameConnection = { send, member: () => client && { userId: client.userId, origin }, authenticate, runTask };

    socket.on('close', () => {
      this.unauthenticated.delete(socket);
      if (client) {
        this.untrack(client);
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
    const pending: PendingAuth = { sessionId: sha256Hex(token), events: [] };
    this.pendingAuths.add(pending);
    try {
      let auth = await resolveSession(this.db, token);
      const userId = auth?.user.id ?? null;
      if (auth && pending.events.some((e) => e.kind === 'resync' || endsSession(e, pending.sessionId, userId))) {
        auth = await resolveSession(this.db, token);
        if (!auth) return 'ended';
      }
      if (!auth) return null;
      if (socket.readyState !== socket.OPEN) return 'gone';
      // Tracked before the watch ends: no event can fall between the two.
      const client: Client = { socket, userId: auth.user.id, sessionId: auth.sessionId, origin, expiresAt: auth.expiresAt.getTime() };
      this.track(client);
      return client;
    } finally {
      this.pendingAuths.delete(pending);
    }
  }

  /**
   * Closes the sockets that did not authenticate in time, and those whose session has expired
   * (with a `session_ended` frame).
   */
  private sweep(): void {
    const now = Date.now();
    for (const [socket, deadline] of this.unauthenticated) {
      if (deadline <= now) socket.close(closeCodes.authFailed, 'authentication timeout');
    }
    this.endSessions((c) => c.expiresAt <= now, sessionEndedFrame('expired', 'Your session has expired. Please sign in again.'));
  }

  private track(client: Client): void {
    const set = this.clients.get(client.userId) ?? new Set<Client>();
    set.add(client);
    this.clients.set(client.userId, set);
  }

  private untrack(client: Client): void {
    const set = this.clients.get(client.userId);
    if (!set?.delete(client)) return;
    if (set.size === 0) this.clients.delete(client.userId);
    this.presenceChanged.add(client.userId);
  }

  /** Runs presence writes in the order they were asked for; each reads the counts when it runs. */
  private inOrder(write: () => Promise<void>): Promise<void> {
    const done = this.presenceWrites.then(write);
    this.presenceWrites = done.catch(() => undefined);
    return done;
  }

  /**
   * Writes the socket counts that changed since the last tick, in one batch, then announces in one
   * frame the members who came online or went offline here and have no socket on another instance.
   * Written before the read of the other instances, as they do: of two instances taking a member's
   * last socket and first socket at once, at least one sees the other's row.
   */
  private flushPresence(): Promise<void> {
    return this.inOrder(async () => {
      if (this.presenceChanged.size === 0) return;
      const counts = new Map([...this.presenceChanged].map((userId) => [userId, this.clients.get(userId)?.size ?? 0]));
      this.presenceChanged.clear();
      let elsewhere: Set<string>;
      try {
        await writeSocketCounts(this.db, this.instanceId, counts);
        elsewhere = await onlineElsewhere(this.db, this.instanceId, [...counts.keys()]);
      } catch (err) {
        // Tried again at the next tick.
        for (const userId of counts.keys()) this.presenceChanged.add(userId);
        throw err;
      }
      const online: string[] = [];
      const offline: string[] = [];
      for (const [userId, sockets] of counts) {
        const here = sockets > 0;
        // A second tab, or a socket closed and opened again within the tick, is no news.
        if (here === this.presentHere.has(userId)) continue;
        if (here) this.presentHere.add(userId);
        else this.presentHere.delete(userId);
        if (!elsewhere.has(userId)) (here ? online : offline).push(userId);
      }
      if (online.length || offline.length) await presence(this, online, offline);
    });
  }

  /**
   * Reads who is online from the database and tells this instance's sockets what differs from
   * what they were told: members of an instance that died without a word go offline here.
   */
  private async reloadOnline(): Promise<void> {
    const now = await onlineUserIds(this.db);
    const online = [...now].filter((userId) => !this.online.has(userId));
    const offline = [...this.online].filter((userId) => !now.has(userId));
    if (online.length || offline.length) this.deliverHere('all', { type: 'presence', online, offline });
  }

  private applyPresence(frame: Extract<ServerFrame, { type: 'presence' }>): void {
    for (const userId of frame.online) this.online.add(userId);
    for (const userId of frame.offline) this.online.delete(userId);
    this.snapshot = null;
  }

  private presenceSnapshot(): Buffer {
    this.snapshot ??= encode({ type: 'presence_snapshot', online: [...this.online] });
    return this.snapshot;
  }

  /** Rewrites this instance's presence rows from the sockets it holds now. */
  private syncPresence(): Promise<void> {
    return this.inOrder(() => syncPresence(this.db, this.instanceId, new Map([...this.clients].map(([userId, set]) => [userId, set.size]))));
  }

  private onBusEvent(event: BusEvent): void {
    if (event.kind === 'resync') {
      for (const pending of this.pendingAuths) pending.events.push(event);
      this.resync().catch((err: unknown) => this.log.warn({ err }, 'resync failed'));
      return;
    }
    if (event.kind === 'deliver') return this.deliverHere(event.to, event.frame);
    if (event.kind === 'end_sessions') this.onEndSessions(event);
    // blocks_changed: security/blocks.ts follows it.
  }

  /** Sends a frame to this instance's sockets of `to`, encoded once for all of them. */
  private deliverHere(to: 'all' | string[], frame: ServerFrame): void {
    if (frame.type === 'presence') this.applyPresence(frame);
    const data = encode(frame);
    const sockets = to === 'all' ? [...this.clients.values()] : to.map((userId) => this.clients.get(userId) ?? []);
    for (const set of sockets) {
      for (const c of set) {
        sendText(c.socket, data);
        this.framesDelivered += 1;
      }
    }
  }

  private onEndSessions(event: EndSessions): void {
    for (const pending of this.pendingAuths) pending.events.push(event);
    const users = new Set(event.userIds);
    const sessionIds = new Set(event.sessionIds);
    if (event.sessionId) sessionIds.add(event.sessionId);
    const closed = this.endSessions((c) => sessionIds.has(c.sessionId) || users.has(c.userId), event.frame);
    if (event.timingId) this.timings.get(event.timingId)?.(closed);
  }

  /** Ends the matching clients' sockets with `frame`; the sockets closed. */
  private endSessions(match: (c: Client) => boolean, frame: ServerFrame): WebSocket[] {
    const closed: WebSocket[] = [];
    for (const set of this.clients.values()) {
      for (const c of set) {
        if (!match(c)) continue;
        sendText(c.socket, encode(frame));
        c.socket.close(closeCodes.sessionEnded, 'session ended');
        closed.push(c.socket);
      }
    }
    return closed;
  }

  /**
   * Closes the sockets opened from addresses blocked since (security/blocks.ts calls it after each
   * reload): the upgrade check alone would leave them open. Their sessions are not ended; a
   * reconnection from there is refused at the upgrade.
   */
  closeBlocked(isBlocked: (ip: string) => boolean): void {
    for (const set of this.clients.values()) {
      for (const c of set) if (isBlocked(c.origin.ip)) c.socket.close(closeCodes.addressBlocked, 'address blocked');
    }
  }

  /**
   * Frames may have been lost on the bus: sockets whose session ended meanwhile (an `end_sessions`
   * may be among the lost) are closed, presence is rewritten, and every other socket is told to
   * catch up from the database.
   */
  private async resync(): Promise<void> {
    const all = [...this.clients.values()].flatMap((set) => [...set]);
    // Should the database be away too, the catch-up matters more: it is asked for all the same.
    const live = await liveSessionIds(this.db, [...new Set(all.map((c) => c.sessionId))]).catch((err: unknown) => {
      this.log.warn({ err }, 'could not check the sessions of open sockets');
      return null;
    });
    if (live) this.endSessions((c) => !live.has(c.sessionId), sessionEndedFrame('revoked', SESSION_HAS_ENDED));
    for (const c of all) if (!live || live.has(c.sessionId)) sendText(c.socket, encode({ type: 'authenticated', userId: c.userId }));
    await this.syncPresence();
    // Presence frames may be among what was lost.
    await this.reloadOnline();
  }

  /**
   * Shutting down: every socket is closed with 1001 "going away", so that clients reconnect at
   * once, elsewhere. Called once this instance no longer accepts connections (app.ts).
   */
  goingAway(): void {
    clearInterval(this.refreshTimer);
    clearInterval(this.tickTimer);
    clearInterval(this.expiryTimer);
    const all = [...this.clients.values()].flatMap((set) => [...set]);
    this.clients.clear();
    for (const c of all) c.socket.close(closeCodes.goingAway, 'server shutting down');
  }

  /**
   * After the sockets are gone: this instance's presence rows go with it, and the members who were
   * online only here are announced offline (those reconnecting elsewhere come back online there).
   */
  async close(): Promise<void> {
    this.goingAway();
    await this.presenceWrites;
    await clearInstance(this.db, this.instanceId);
    const here = [...this.presentHere];
    this.presentHere.clear();
    const elsewhere = await onlineElsewhere(this.db, this.instanceId, here);
    const offline = here.filter((userId) => !elsewhere.has(userId));
    if (offline.length) await presence(this, [], offline);
  }
}

/** Resolves once the socket is closed; terminates it if its client has not answered the close within `ms`. */
function closedOrTerminated(socket: WebSocket, ms: number): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.terminate(), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A frame as the bytes every socket gets: encoded once, however many sockets it goes to. */
function encode(frame: ServerFrame): Buffer {
  return Buffer.from(JSON.stringify(frame));
}

/**
 * Sends encoded text to an open socket; a socket too far behind is closed instead (see
 * MAX_BUFFERED_BYTES), and terminated if its client does not answer the close in time.
 */
function sendText(socket: WebSocket, data: Buffer): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    socket.close(closeCodes.tryAgainLater, 'too far behind');
    void closedOrTerminated(socket, CLOSE_WAIT_MS);
    return;
  }
  socket.send(data, { binary: false });
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
