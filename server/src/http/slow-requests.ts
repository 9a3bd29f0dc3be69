/**
 * Slow requests closed early (docs/security.md §9). A client that sends its headers or its body
 * slowly holds a connection and little else (a place of the overload gate is taken only once the
 * body has arrived: overload.ts), but the connections would pile up without bound in time:
 *
 * - the headers must arrive within `headersTimeoutMs` (Node's own check, answered 408 by app.ts);
 * - a body must arrive within `bodyGraceMs` plus its length at `minBodyBytesPerSecond`: a 4 KB
 *   JSON body gets about 10 s, the largest upload (10 MiB) about 22 minutes, a 64 kbit/s link.
 *   A body that does not is answered 408, its connection closed, and counted as a security event.
 *
 * The rate is checked against the whole body rather than its progress, so a client that sends a
 * byte every few seconds gains nothing over one that sends nothing.
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client';
import { eventTypes, recordEvent } from '../security/events';

export type SlowRequestLimits = {
  headersTimeoutMs: number;
  bodyGraceMs: number;
  minBodyBytesPerSecond: number;
};

export const slowRequestDefaults: SlowRequestLimits = {
  headersTimeoutMs: 20_000,
  bodyGraceMs: 10_000,
  minBodyBytesPerSecond: 8 * 1024,
};

/** How long a body of `bytes` may take to arrive. */
export const bodyDeadlineMs = (limits: SlowRequestLimits, bytes: number): number =>
  limits.bodyGraceMs + Math.ceil((bytes / limits.minBodyBytesPerSecond) * 1000);

/** What a body still arriving at its deadline fails with. */
export class BodyTimeout extends Error {
  constructor() {
    super('request body not received in time');
  }
}

const TIMED_OUT = JSON.stringify({ error: 'The request body did not arrive in time', code: 'invalid_request' });

/**
 * Starts each request's body clock when its headers are in, and stops it when the body has been
 * read whole ('end', whoever reads it: the JSON parser or an upload's stream) or the answer is
 * done. A body of unknown length (chunked) is given the route's body limit.
 */
export function registerBodyDeadline(app: FastifyInstance, db: Db, limits: SlowRequestLimits): void {
  app.addHook('onRequest', async (req, reply) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (!chunked && !(declared > 0)) return;
    const bytes = chunked ? req.routeOptions.bodyLimit : Math.min(declared, req.routeOptions.bodyLimit);
    const timer = setTimeout(
      () => {
        if (req.raw.complete) return;
        recordEvent(db, req, {
          type: eventTypes.slowRequest,
          severity: 'low',
          details: { route: req.routeOptions.url ?? 'unknown', declaredBytes: chunked ? null : declared },
        }).catch((err: unknown) => req.log.error({ err }, 'could not record a slow-request event'));
        // Destroying the request fails whatever reads its body (an upload's stream drops its file)
        // and closes the connection; once answered, the request is no longer Node's to abort.
        const fail = () => req.raw.destroy(new BodyTimeout());
        if (reply.raw.headersSent) {
          fail();
          return;
        }
        reply.raw.writeHead(408, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(TIMED_OUT),
          connection: 'close',
        });
        reply.raw.end(TIMED_OUT, fail);
      },
      bodyDeadlineMs(limits, bytes),
    );
    const stop = () => clearTimeout(timer);
    req.raw.once('end', stop);
    reply.raw.once('close', stop);
  });
}
