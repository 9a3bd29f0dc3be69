/**
 * The WebSocket gateway at /ws: the sockets this instance holds, per member, and what the bus
 * tells them. Connection and authentication are in connection.ts, the routing of client frames by
 * the frame table in dispatch.ts, presence in presence.ts, per-socket flow control in flow.ts.
 *
 * An `authenticated` frame marks the point from which the socket gets every frame: the client
 * catches up from history on each one (web/src/chat/use-chat-realtime.ts). So besides answering
 * `authenticate`, the gateway sends it again after a `resync` from the bus (frames may have been
 * lost while Redis was away), and members fetch from the database what the bus missed.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { closeCodes, SOCKET_PATH, type ServerFrame } from '@enclave/protocol';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Db } from '../db/client';
import { liveSessionIds } from '../auth/sessions';
import type { WorkGate } from '../http/overload';
import type { Bus, BusEvent } from './bus';
import { Connections, SESSION_HAS_ENDED, type Client, type EndSessions } from './connection';
import { FrameDispatch, type FrameLimits } from './dispatch';
import { CLOSE_WAIT_MS, closedOrTerminated, encode, sendText } from './flow';
import { PresenceTracker } from './presence';
import { serverFrame } from './publish';

export { onSocketError } from './connection';

/**
 * How often sockets are checked for a session that has expired or an authentication deadline
 * passed: one timer for all of them, not one per socket. A socket outlives either by at most this.
 */
const EXPIRY_SWEEP_MS = 1_000;

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
  private readonly presence: PresenceTracker;
  private readonly connections: Connections;
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly timings = new Map<string, Timing>();
  /** Frames from the bus handed to sockets here, one per socket (the metrics: http/metrics.ts). */
  framesDelivered = 0;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
    /** The instance's bound on database work in flight (http/overload.ts), shared with HTTP. */
    gate: WorkGate,
    /** The rate limits of member frames (frame-limits.ts). */
    limits: FrameLimits,
  ) {
    bus.subscribe((event) => this.onBusEvent(event));
    this.presence = new PresenceTracker(db, this.instanceId, this, log);
    this.frames = new FrameDispatch(log, limits);
    this.connections = new Connections({
      db,
      log,
      gate,
      frames: this.frames,
      presence: this.presence,
      track: (client) => this.track(client),
      untrack: (client) => this.untrack(client),
    });
    this.expiryTimer = setInterval(() => this.sweep(), EXPIRY_SWEEP_MS);
    this.expiryTimer.unref();
  }

  /**
   * Sends news of something already committed to sockets on every instance. A failure is logged,
   * not thrown, so that what was stored is not answered as an error: the bus sends a `resync` once
   * it can, and members catch up from the database. Features publish through publish.ts.
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
    this.connections.handle(socket, req);
  }

  /** Sockets here per member (presence.ts). */
  socketCount(userId: string): number {
    return this.clients.get(userId)?.size ?? 0;
  }

  socketCounts(): Map<string, number> {
    return new Map([...this.clients].map(([userId, set]) => [userId, set.size]));
  }

  /**
   * Closes the sockets that did not authenticate in time, and those whose session has expired
   * (with a `session_ended` frame).
   */
  private sweep(): void {
    const now = Date.now();
    this.connections.closeLate(now);
    this.endSessions((c) => c.expiresAt <= now, serverFrame.session_ended('expired', 'Your session has expired. Please sign in again.'));
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
    this.presence.changedHere(client.userId);
  }

  private onBusEvent(event: BusEvent): void {
    if (event.kind === 'resync') {
      this.connections.heard(event);
      this.resync().catch((err: unknown) => this.log.warn({ err }, 'resync failed'));
      return;
    }
    if (event.kind === 'deliver') return this.deliverHere(event.to, event.frame);
    if (event.kind === 'end_sessions') this.onEndSessions(event);
    // blocks_changed: security/blocks.ts follows it.
  }

  /** Sends a frame to this instance's sockets of `to`, encoded once for all of them. */
  deliverHere(to: 'all' | string[], frame: ServerFrame): void {
    if (frame.type === 'presence') this.presence.apply(frame);
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
    this.connections.heard(event);
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
    if (live) this.endSessions((c) => !live.has(c.sessionId), serverFrame.session_ended('revoked', SESSION_HAS_ENDED));
    for (const c of all) if (!live || live.has(c.sessionId)) sendText(c.socket, encode(serverFrame.authenticated(c.userId)));
    await this.presence.sync();
    // Presence frames may be among what was lost.
    await this.presence.reloadOnline();
  }

  /**
   * Shutting down: every socket is closed with 1001 "going away", so that clients reconnect at
   * once, elsewhere. Called once this instance no longer accepts connections (app.ts).
   */
  goingAway(): void {
    this.presence.stopTimers();
    clearInterval(this.expiryTimer);
    const all = [...this.clients.values()].flatMap((set) => [...set]);
    this.clients.clear();
    for (const c of all) c.socket.close(closeCodes.goingAway, 'server shutting down');
  }

  /** After the sockets are gone, this instance's presence goes with it (presence.ts). */
  async close(): Promise<void> {
    this.goingAway();
    await this.presence.close();
  }
}
