import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import { errorCodes } from '@enclave/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { registerAccessControl } from './access/policy';
import { creatorRoutes } from './creator/routes';
import { adminRoutes } from './admin/routes';
import { authRoutes } from './auth/routes';
import type { Config } from './config';
import type { AppContext } from './context';
import type { Db } from './db/client';
import { HttpError, registerErrorHandler } from './http/errors';
import { eventTypes, recordEvent } from './security/events';
import { keyRoutes } from './keys/routes';
import { messageRoutes } from './messages/routes';
import type { Bus } from './realtime/bus';
import { Gateway } from './realtime/gateway';
import { userRoutes } from './users/routes';

export type App = { app: FastifyInstance; gateway: Gateway; close: () => Promise<void> };

/** Builds the HTTP + WebSocket server over an open database and bus. `logStream` lets tests read the log. */
export async function buildApp(opts: {
  config: Config;
  db: Db;
  bus: Bus;
  /** SHA-256 of the master key (creator/master-key.ts). */
  masterKeyHash: string;
  logStream?: Writable;
}): Promise<App> {
  const { config, db, bus } = opts;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(opts.logStream ? { stream: opts.logStream } : {}),
      redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
    },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
    exposeHeadRoutes: false,
  });
  // Only JSON bodies: a cross-site form cannot post text/plain or urlencoded to us.
  app.removeContentTypeParser('text/plain');

  const gateway = new Gateway(db, bus, app.log);
  const ctx: AppContext = { db, config, gateway };
  const rateLimitRedis = config.redisUrl ? new Redis(config.redisUrl) : undefined;

  registerErrorHandler(app);
  await app.register(fastifyCookie);
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Radix primitives position popovers with inline style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    // HSTS only means something when a TLS proxy is in front of us.
    strictTransportSecurity: config.trustProxy ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  await app.register(fastifyRateLimit, {
    global: false,
    hook: 'preHandler',
    ...(rateLimitRedis ? { redis: rateLimitRedis, nameSpace: `${config.redisPrefix}:rl:` } : {}),
    errorResponseBuilder: (_req, context) =>
      new HttpError(429, errorCodes.rateLimited, `Too many attempts. Access blocked for security. Retry in ${context.after}.`),
    // Each refusal is a security event (the heatmap and risk panels count them).
    onExceeded: (req) => {
      recordEvent(db, req, { type: eventTypes.rateLimited, severity: 'medium', userId: req.auth?.user.id ?? null, details: { route: req.routeOptions.url } }).catch(
        (err: unknown) => req.log.error({ err }, 'could not record a rate-limit event'),
      );
    },
  });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 1024 * 1024 },
    // A client breaking the WebSocket protocol (say, a frame over maxPayload) is its own fault:
    // note it and drop it, without an error line any client could write at will.
    errorHandler: (err, socket, req) => {
      const code = (err as { code?: unknown }).code;
      const clientFault = typeof code === 'string' && code.startsWith('WS_ERR_');
      req.log[clientFault ? 'info' : 'error']({ err }, 'websocket error');
      socket.terminate();
    },
  });

  registerAccessControl(app, db, opts.masterKeyHash, config.rateLimits.masterKey);
  // CSRF: state changes and socket upgrades only from our own origin.
  app.addHook('onRequest', async (req) => {
    const origin = req.headers.origin;
    const guarded = req.method !== 'GET' && req.method !== 'HEAD' ? true : req.url.startsWith('/ws');
    if (guarded && origin && originHost(origin) !== req.host) {
      throw new HttpError(403, errorCodes.forbidden, 'Cross-origin request refused');
    }
  });

  app.head('/api/health', async (_req, reply) => reply.status(200).send());
  app.get('/ws', { websocket: true }, (socket, req) => gateway.handleConnection(socket, req));
  await app.register(keyRoutes, { ctx });
  await app.register(authRoutes, { ctx });
  await app.register(userRoutes, { ctx });
  await app.register(messageRoutes, { ctx });
  await app.register(adminRoutes, { ctx });
  await app.register(creatorRoutes, { ctx });

  const webDist = config.webDist;
  const hasWeb = webDist !== undefined && fs.existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) await app.register(fastifyStatic, { root: webDist, wildcard: true });
  app.setNotFoundHandler(async (req, reply) => {
    if (!hasWeb || req.url.startsWith('/api/') || req.url.startsWith('/ws') || req.method !== 'GET') {
      return reply.status(404).send({ error: `No route ${req.method} ${req.url.split('?')[0]}`, code: errorCodes.notFound });
    }
    // The single-page app routes everything else itself (including its own 404 page).
    return reply.sendFile('index.html');
  });

  return {
    app,
    gateway,
    close: async () => {
      await gateway.close();
      await app.close();
      rateLimitRedis?.disconnect();
    },
  };
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}
