/**
 * Registers a route of the protocol's route table (packages/protocol/src/routes.ts): Fastify
 * parses the body, query and path parameters with the route's schemas before the handler runs,
 * and checks the handler's answer against the response schema on the way out.
 */
import { errorResponseSchema, type ParsedInput, type RouteDefinition, type RouteResponse } from '@enclave/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { z } from 'zod';
import { refuseUnfitInput } from './json-input';

/** A request whose body, query and params have been parsed by the route's schemas. */
export type RouteRequest<R extends RouteDefinition> = Omit<FastifyRequest, 'body' | 'query' | 'params'> & ParsedInput<R>;

/** What a handler returns: the answer its schema describes, or the bytes of a binary answer. */
type HandlerResult<R extends RouteDefinition> =
  | RouteResponse<R>
  | (R['contentType'] extends 'application/octet-stream' ? Uint8Array : never)
  | (R['degraded'] extends z.ZodType ? z.output<R['degraded']> : never);

export type RouteHandler<R extends RouteDefinition> = (req: RouteRequest<R>, reply: FastifyReply) => Promise<HandlerResult<R>>;

export type RouteOptions = {
  rateLimit?: RateLimitOptions;
  /** Bytes; the route's raw body limit, or Fastify's default for the app otherwise. */
  bodyLimit?: number;
  /** Runs before the body is read (a raw upload refused on its declared length). */
  preParsing?: (req: FastifyRequest) => Promise<void>;
};

/** A per-window limit from the configuration, as @fastify/rate-limit takes it. */
export const rateLimit = (l: { max: number; windowMs: number }, keyGenerator?: (req: FastifyRequest) => string): RateLimitOptions => ({
  max: l.max,
  timeWindow: l.windowMs,
  ...(keyGenerator ? { keyGenerator } : {}),
});

export function serve<R extends RouteDefinition>(app: FastifyInstance, route: R, handler: RouteHandler<R>, opts: RouteOptions = {}): void {
  app.route({
    method: route.method,
    url: route.path,
    schema: {
      summary: route.summary,
      // The OpenAPI document lists tagged routes only (app.ts): the API's, grouped by their path.
      tags: [route.path.split('/')[2] ?? 'api'],
      ...(route.body ? { body: route.body } : {}),
      ...(route.rawBody ? { consumes: [route.rawBody.contentType] } : {}),
      ...(route.query ? { querystring: route.query } : {}),
      ...(route.params ? { params: route.params } : {}),
      response: {
        [route.status]: route.contentType
          ? { description: route.summary, content: { [route.contentType]: { schema: route.response } } }
          : route.response,
        '4xx': errorResponseSchema,
        ...(route.degraded ? { 503: route.degraded } : {}),
      },
    },
    ...(opts.bodyLimit || route.rawBody ? { bodyLimit: opts.bodyLimit ?? route.rawBody?.maxBytes } : {}),
    ...(opts.preParsing ? { preParsing: opts.preParsing } : {}),
    ...(opts.rateLimit ? { config: { rateLimit: opts.rateLimit } } : {}),
    // Text PostgreSQL cannot store, or nesting too deep, is a 400 before validation (json-input.ts).
    preValidation: refuseUnfitInput,
    handler: async (req, reply) => {
      reply.status(route.status);
      if (route.contentType) reply.header('content-type', route.contentType);
      return handler(req as unknown as RouteRequest<R>, reply);
    },
  });
}
