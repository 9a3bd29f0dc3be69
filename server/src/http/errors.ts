import { errorCodes, type ErrorCode, type ErrorResponse } from '@enclave/protocol';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { isDatabaseUnavailable } from '../db/client';

/**
 * An answer the client should see as it is: status, machine code, human message, and for a 503
 * the seconds to wait (Retry-After; RETRY_AFTER_SECONDS when not given).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** "field: why; other: why" */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/** Parses a value from outside; anything malformed is a 400 that says which field and why. */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(400, errorCodes.invalidRequest, describeIssues(result.error));
}

/**
 * Seconds a client is asked to wait (`Retry-After`) when the server cannot serve it for now: the
 * database is unreachable or restarting, or this instance is shutting down.
 */
const RETRY_AFTER_SECONDS = 5;

/** This instance is draining (SIGTERM): the client goes to another one, or to this one restarted. */
export function shuttingDown(): HttpError {
  return new HttpError(503, errorCodes.unavailable, 'The server is restarting. Try again in a moment.');
}

const fastifyCodes: Record<number, ErrorCode> = {
  401: errorCodes.unauthorized,
  403: errorCodes.forbidden,
  404: errorCodes.notFound,
  429: errorCodes.rateLimited,
};

/** Every error leaves as `{error, code}` with a 4xx where the client is at fault, never a bare 500. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler<FastifyError | HttpError>((err, req, reply) => {
    let body: ErrorResponse;
    let status: number;
    if (err instanceof HttpError) {
      status = err.status;
      body = { error: err.message, code: err.code };
    } else if (hasZodFastifySchemaValidationErrors(err)) {
      // A body, query or path parameter that its route's schema refuses: say which field and why.
      status = 400;
      const issues = err.validation.map((v) => {
        const field = v.instancePath.split('/').filter(Boolean).join('.');
        return field ? `${field}: ${v.message}` : v.message;
      });
      body = { error: issues.join('; '), code: errorCodes.invalidRequest };
    } else if (err instanceof Error && 'method' in err && isResponseSerializationError(err)) {
      req.log.error({ err, issues: err.cause.issues }, 'answer does not match its response schema');
      status = 500;
      body = { error: 'Internal server error', code: 'internal' as ErrorCode };
    } else if (isDatabaseUnavailable(err)) {
      // PostgreSQL is down or restarting: not a bug, and over once it is back (the pool reconnects).
      req.log.warn({ err }, 'database unavailable');
      status = 503;
      body = { error: 'The service is temporarily unavailable. Try again in a few seconds.', code: errorCodes.unavailable };
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own refusals: non-JSON bodies, bad media type, body too large, rate limits.
      status = err.statusCode;
      const consumes = (req.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes?.[0] ?? 'application/json';
      body = { error: clientMessage(err, consumes), code: fastifyCodes[status] ?? errorCodes.invalidRequest };
    } else {
      req.log.error({ err }, 'request failed');
      status = 500;
      body = { error: 'Internal server error', code: 'internal' as ErrorCode };
    }
    if (status === 503) reply.header('retry-after', String((err instanceof HttpError && err.retryAfterSeconds) || RETRY_AFTER_SECONDS));
    return reply.status(status).send(body);
  });
}

/** `consumes`: the body's media type the route expects. */
function clientMessage(err: FastifyError, consumes: string): string {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Content-Type must be ${consumes}`;
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body is empty';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case undefined:
      return err.message.startsWith('Unexpected') || err instanceof SyntaxError ? 'Request body is not valid JSON' : err.message;
    default:
      return err.message;
  }
}
