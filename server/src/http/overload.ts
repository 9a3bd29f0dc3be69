/**
 * Overload refused early (docs/scaling.md): an instance takes at most `maxInFlight` API requests and
 * socket tasks that work on the database at once. Past that it answers 503 with a short
 * Retry-After at once, rather than queueing without bound in front of the database, so that the
 * requests it accepts keep their latency and a busy instance sheds its excess to the client's
 * back-off (or, behind a proxy, to another instance).
 */
import { errorCodes, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors';

/** Seconds a refused client waits: the queue of a busy instance drains within one. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export const overloaded = (): HttpError =>
  new HttpError(503, errorCodes.unavailable, 'The server is busy. Try again in a moment.', OVERLOAD_RETRY_AFTER_SECONDS);

/** A count of the work in flight, bounded. */
export class WorkGate {
  private inFlight = 0;

  constructor(readonly max: number) {}

  /** Takes a place; false, and nothing taken, when all are taken. */
  tryEnter(): boolean {
    if (this.inFlight >= this.max) return false;
    this.inFlight += 1;
    return true;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  /** Runs `task` in a place of its own, or answers null at once when there is none. */
  async run<T>(task: () => Promise<T>): Promise<T | null> {
    if (!this.tryEnter()) return null;
    try {
      return await task();
    } finally {
      this.leave();
    }
  }
}

/**
 * Every API request but the health check takes a place before anything else reads the database
 * (the session, a block's event) and gives it back when its answer is done or its connection
 * gone ('close' comes in both cases; Fastify's onResponse would miss a client that hung up).
 */
export function registerOverloadGate(app: FastifyInstance, gate: WorkGate): void {
  app.addHook('onRequest', async (req, reply) => {
    const url = req.routeOptions.url;
    if (url === undefined || !url.startsWith('/api/') || url === routes.health.path) return;
    if (!gate.tryEnter()) throw overloaded();
    reply.raw.once('close', () => gate.leave());
  });
}
