/**
 * Routes each client frame by the table in packages/protocol/src/frames.ts (clientFrames), as
 * routes are registered from routes.ts: the frames anyone on the socket may send are answered by
 * the connection itself (connection.ts), and each member frame goes to the handler its feature
 * registered (p2p/routes.ts, messages/routes.ts), run within the socket's bounds (flow.ts) and
 * counted first against the rate limit its table entry names, so no handler counts for itself.
 */
import { clientFrames, type ClientFrame, type ClientFrameDefinition, type ServerFrame } from '@enclave/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { EventSource } from '../security/events';
import { serverFrame } from './publish';

type ClientFrameType = ClientFrame['type'];
type FrameOf<T extends ClientFrameType> = Extract<ClientFrame, { type: T }>;
type Defs = typeof clientFrames;
/** The frames only a signed-in member may send; every other one is answered before authentication too. */
export type MemberFrameType = { [K in ClientFrameType]: Defs[K]['access'] extends 'member' ? K : never }[ClientFrameType];
type PublicFrameType = Exclude<ClientFrameType, MemberFrameType>;

/** Who sent a member frame: `origin` is one object per socket, for as long as it lives. */
export type FrameSender = { userId: string; origin: EventSource };
export type Send = (frame: ServerFrame) => void;
/** A feature's handler of one or more member frames (p2p/signaling.ts, messages/typing.ts). */
export type FrameHandler<T extends MemberFrameType> = (from: FrameSender, frame: FrameOf<T>, send: Send) => Promise<void>;
/** What a handler's failure becomes: a log line, and an error frame when the member should know. */
export type FrameFailure = (err: unknown, send: Send, log: FastifyBaseLogger) => void;

/** What a socket offers the frames it receives (connection.ts). */
export type FrameConnection = {
  send: Send;
  /** The signed-in member, once the socket authenticated. */
  member(): FrameSender | null;
  /** Answers an `authenticate` frame. */
  authenticate(): void;
  /** Runs a member frame's work within the socket's and the instance's bounds (flow.ts). */
  runTask(handle: () => Promise<void>, onError: (err: unknown) => void): void;
};

const publicFrames: { [K in PublicFrameType]: (conn: FrameConnection, frame: FrameOf<K>) => void } = {
  ping: (conn) => conn.send(serverFrame.pong()),
  authenticate: (conn) => conn.authenticate(),
};

type Registered = { handle: FrameHandler<MemberFrameType>; failed: FrameFailure };

/** A rate limit a client frame may name in the table (a key of the configuration's `rateLimits`). */
export type FrameRateLimit = NonNullable<ClientFrameDefinition['rateLimit']>;

/** The words of a refusal, per limit; the retry time follows them. */
const refusals: Record<FrameRateLimit, string> = { p2pSignal: 'Too many P2P signals' };

/** How member frames are counted against their limits (frame-limits.ts). */
export type FrameLimits = {
  /** Counts one frame of `userId` against `limit`, over all their sockets: 0 within it, else the milliseconds until it resets. */
  count(limit: FrameRateLimit, userId: string): Promise<number>;
  /** A frame refused by its limit: the security monitor hears of it. */
  refused(from: FrameSender, frame: ClientFrame): Promise<void>;
};

export class FrameDispatch {
  private readonly handlers = new Map<MemberFrameType, Registered>();

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly limits: FrameLimits,
  ) {}

  /** Registers the handler of a member frame, once per frame type. */
  handle<T extends MemberFrameType>(type: T, handle: FrameHandler<T>, failed: FrameFailure): void {
    if (this.handlers.has(type)) throw new Error(`${type} frames have a handler already`);
    this.handlers.set(type, { handle: handle as unknown as FrameHandler<MemberFrameType>, failed });
  }

  dispatch(conn: FrameConnection, frame: ClientFrame): void {
    if (clientFrames[frame.type].access === 'public') {
      const answer = publicFrames[frame.type as PublicFrameType] as (conn: FrameConnection, frame: ClientFrame) => void;
      return answer(conn, frame);
    }
    const type = frame.type as MemberFrameType;
    const registered = this.handlers.get(type);
    const member = conn.member();
    if (!member || !registered) return conn.send(serverFrame.error('Not signed in'));
    const limit = (clientFrames[type] as ClientFrameDefinition).rateLimit;
    conn.runTask(
      async () => {
        // Counted before any other work, so that a flood costs none.
        const waitMs = limit ? await this.limits.count(limit, member.userId) : 0;
        if (!limit || !waitMs) return registered.handle(member, frame as FrameOf<MemberFrameType>, conn.send);
        await this.limits.refused(member, frame);
        conn.send(serverFrame.error(`${refusals[limit]}. Retry in ${Math.ceil(waitMs / 1000)} s.`));
      },
      (err) => registered.failed(err, conn.send, this.log),
    );
  }
}
