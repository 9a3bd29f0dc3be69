/**
 * Overload refused early (docs/scaling.md): an instance takes at most `maxInFlight` API requests and
 * socket tasks that work on the database at once. Past that it answers 503 with a short
 * Retry-After at once, rather than queueing without bound in front of the database, so that the
 * requests it accepts keep their latency and a busy instance sheds its excess to the client's
 * back-off (or, behind a proxy, to another instance).
 *
 * A place is held only while the server itself works: a request takes one once its body has
 * arrived, never while it waits for a client to send (slow bodies are bounded in time by
 * slow-requests.ts instead), and one address (an IPv6 /64) holds at most a quarter of them.
 */
import { errorCodes, routeKey, routes } from '@enclave/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { limitedAddress } from '../security/blocks';
import { HttpError } from './errors';

/** Seconds a refused client waits: the queue of a busy instance drains within one. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;
/** One address may hold at most this share of the places (at least one). */
export const ADDRESS_SHARE = 1 / 4;
/** The health check says "degraded" for this long after the gate last refused work for want of a place. */
export const DEGRADED_FOR_MS = 5_000;

/** A request refused for want of a place (the metrics count it apart: http/metrics.ts). */
export class OverloadedError extends HttpError {
  constructor() {
    super(503, errorCodes.unavailable, 'The server is busy. Try again in a moment.', OVERLOAD_RETRY_AFTER_SECONDS);
  }
}

export const overloaded = (): HttpError => new OverloadedError();

/** A count of the work in flight, bounded, and per address. */
export class WorkGate {
  private inFlight = 0;
  private readonly byAddress = new Map<string, number>();
  private refusedAt = Number.NEGATIVE_INFINITY;
  /** Places one address may hold. */
  readonly perAddress: number;

  constructor(
    readonly max: number,
    private readonly degradedForMs = DEGRADED_FOR_MS,
  ) {
    this.perAddress = Math.max(1, Math.floor(max * ADDRESS_SHARE));
  }

  /** Places taken now. */
  get held(): number {
    return this.inFlight;
  }

  /**
   * Takes a place, counted against `address` when given (limitedAddress); false, and nothing
   * taken, when all are taken or the address holds its share.
   */
  tryEnter(address?: string): boolean {
    if (this.inFlight >= this.max) {
      this.refusedAt = Date.now();
      return false;
    }
    if (address !== undefined) {
      const held = this.byAddress.get(address) ?? 0;
      // One address over its share is its own excess, not the instance's: not "degraded".
      if (held >= this.perAddress) return false;
      this.byAddress.set(address, held + 1);
    }
    this.inFlight += 1;
    return true;
  }

  /** Gives back a place taken with the same `address`. */
  leave(address?: string): void {
    this.inFlight -= 1;
    if (address === undefined) return;
    const held = (this.byAddress.get(address) ?? 1) - 1;
    if (held > 0) this.byAddress.set(address, held);
    else this.byAddress.delete(address);
  }

  /** Runs `task` in a place of its own, or answers null at once when there is none. */
  async run<T>(task: () => Promise<T>, address?: string): Promise<T | null> {
    if (!this.tryEnter(address)) return null;
    try {
      return await task();
    } finally {
      this.leave(address);
    }
  }

  /** Whether every place is taken or the gate refused work for want of one within `degradedForMs`. */
  degraded(): boolean {
    return this.inFlight >= this.max || Date.now() - this.refusedAt < this.degradedForMs;
  }
}

/** The address a request's places count against (the rate limits' notion: IPv4, or the IPv6 /64). */
export const placeAddress = (req: FastifyRequest): string => limitedAddress(req.ip);

/** Runs `task` in a place of the request's address, or refuses the request with 503 at once. */
export async function inPlace<T>(gate: WorkGate, req: FastifyRequest, task: () => Promise<T>): Promise<T> {
  const address = placeAddress(req);
  if (!gate.tryEnter(address)) throw overloaded();
  try {
    return await task();
  } finally {
    gate.leave(address);
  }
}

/** Routes whose raw body is streamed by their handler (an upload): they take places themselves, around their database work. */
const streamedBodies = new Set(Object.values(routes).flatMap((r) => ('rawBody' in r && r.rawBody ? [routeKey(r)] : [])));

/**
 * Every API request but the health and readiness checks takes a place once its body has arrived (preValidation
 * comes after the body parser) and gives it back when its answer is done or its connection gone
 * ('close' comes in both cases; Fastify's onResponse would miss a client that hung up). Reads
 * before the body (the session: access/policy.ts) take a place of their own for their query.
 */
export function registerOverloadGate(app: FastifyInstance, gate: WorkGate): void {
  app.addHook('preValidation', async (req, reply) => {
    const url = req.routeOptions.url;
    if (url === undefined || !url.startsWith('/api/') || url === routes.health.path || url === routes.ready.path) return;
    if (streamedBodies.has(`${req.method} ${url}`)) return;
    const address = placeAddress(req);
    if (!gate.tryEnter(address)) throw overloaded();
    // A client that hung up while its body was parsed: its 'close' has come and gone already.
    if (reply.raw.closed) gate.leave(address);
    else reply.raw.once('close', () => gate.leave(address));
  });
}
