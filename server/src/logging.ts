/**
 * The server's log: one JSON object per line (pino) on standard output, nothing else there, so
 * that a collector or `jq` reads every line. The fields are listed in docs/operations.md §9; what
 * is kept out of it, the generated master key, in §6.
 */
import type { Writable } from 'node:stream';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino } from 'pino';

/** Headers that carry credentials, should a log line ever include them. */
const REDACTED = ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'];

/**
 * The logger of a server process (main.ts) or of a test's server (`stream`: the test reads it).
 * Typed as Fastify's, which its instances and their route generics are declared with.
 */
export function createLogger(level: string, stream?: Writable): FastifyBaseLogger {
  return pino({ level, redact: REDACTED }, stream);
}

/** Load balancers and orchestrators ask these every few seconds: at info they would drown the rest. */
const PROBE_ROUTES = new Set(['/api/health', '/api/ready']);
const isProbe = (req: FastifyRequest) => PROBE_ROUTES.has(req.routeOptions.url ?? '');

/** Fastify's request lines, with the health and readiness checks' at debug rather than info. */
export class ProbesAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (!isProbe(request)) return super.incomingRequest(request, reply, metadata);
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error || !isProbe(request)) return super.requestCompleted(error, request, reply, metadata);
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Where a generated master key is shown: a terminal (standard error) when there is one. */
export type Terminal = { readonly isTTY?: boolean; write(text: string): unknown };

/**
 * A master key generated at this start is shown once on the operator's terminal and never in the
 * log, which journald, a container runtime or a collector keeps: without a terminal (a service) it
 * is in its owner-only file alone, and the log says where.
 */
export function announceMasterKey(
  generated: { key: string; file: string },
  log: FastifyBaseLogger,
  terminal: Terminal = process.stderr,
): void {
  const shown = terminal.isTTY === true;
  if (shown) {
    terminal.write(
      `\nNetwork creator master key (shown once; also saved, readable only by you, in ${generated.file}):\n${generated.key}\n\n`,
    );
  }
  log.warn(
    { file: generated.file, shownOnTerminal: shown },
    `network creator master key generated and saved in ${generated.file} (owner-only)${shown ? ', shown once on the terminal' : ''}; it is never written to the log`,
  );
}
