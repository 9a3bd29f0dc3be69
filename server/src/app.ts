import type { Duplex, Writable } from 'node:stream';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import { errorCodes, limits, routes, SOCKET_PATH } from '@enclave/protocol';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import { registerAccessControl } from './access/policy';
import { attachmentRoutes } from './attachments/routes';
import { startSweeping } from './attachments/service';
import type { AttachmentStore } from './attachments/blobs';
import { openAttachmentStore } from './attachments/store';
import type { MasterKeyHashes } from './creator/master-key';
import { creatorRoutes } from './creator/routes';
import { authRoutes } from './auth/routes';
import { conversationRoutes } from './conversations/routes';
import { channelKeyRoutes } from './conversations/channel-key';
import { groupRoutes } from './groups/routes';
import type { Config, TrustProxy } from './config';
import type { AppContext } from './context';
import { connectionsOf, type Db } from './db/client';
import { Scrubber } from './db/erasure';
import { GroupCommit } from './db/group-commit';
import { HttpError, registerErrorHandler, shuttingDown } from './http/errors';
import { serveMetrics, Tally, type MetricsListener } from './http/metrics';
import { createLogger, ProbesAtDebug } from './logging';
import { registerOverloadGate, WorkGate } from './http/overload';
import { Readiness } from './http/readiness';
import { bodyDeadlineMs, registerBodyDeadline, slowRequestDefaults } from './http/slow-requests';
import { redisRateLimitStore, WindowCounter } from './http/rate-limit-store';
import { serializerCompiler } from './http/serializer';
import { serviceRoutes } from './http/service-routes';
import { registerWebApp } from './http/web-app';
import { BlockList } from './security/blocks';
import { eventTypes, flushSecurityEvents, recordEvent } from './security/events';
import { securityRoutes } from './security/routes';
import { keyRoutes } from './keys/routes';
import { p2pRoutes } from './p2p/routes';
import { readReceiptRoutes } from './read-receipts/routes';
import { pushRoutes } from './push/routes';
import { PushSender } from './push/sender';
import { ensureVapidKeys, vapidSubject } from './push/vapid';
import { messageRoutes } from './messages/routes';
import type { Bus } from './realtime/bus';
import { frameLimits } from './realtime/frame-limits';
import { Gateway, onSocketError, socketRoute } from './realtime/gateway';
import { userRoutes } from './users/routes';

export type App = {
  app: FastifyInstance;
  /** What the routes act with; the operator socket (operator/socket.ts) acts with the same. */
  ctx: AppContext;
  gateway: Gateway;
  blocks: BlockList;
  attachments: AttachmentStore;
  gate: WorkGate;
  scrubber: Scrubber;
  /** The metrics listener (METRICS_PORT), when configured. */
  metrics: MetricsListener | null;
  close: () => Promise<void>;
};

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Sends committed together at most: past it a batch's transaction holds its locks longer than a commit saves. */
const SEND_BATCH_MAX = 64;

/**
 * Fastify types these factories as Ajv's and fast-json-stringify's; at run time each returns the
 * compiler for the root context, which may be any compiler `setValidatorCompiler` and
 * `setSerializerCompiler` take.
 */
const zodCompilers = { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as CompilersFactory;

/** Builds the HTTP + WebSocket server over an open database and bus. `logStream` lets tests read the log. */
export async function buildApp(opts: {
  config: Config;
  db: Db;
  bus: Bus;
  /** SHA-256 of the master key, and of the previous one during a rotation (creator/master-key.ts). */
  masterKeys: MasterKeyHashes;
  /** The process's logger (main.ts), which logged before the app existed; else one at `config.logLevel` on `logStream` or standard output. */
  logger?: FastifyBaseLogger;
  logStream?: Writable;
}): Promise<App> {
  const { config, db, bus } = opts;
  const slowRequests = { ...slowRequestDefaults, ...config.requestLimits };
  const app = Fastify({
    loggerInstance: opts.logger ?? createLogger(config.logLevel, opts.logStream),
    logController: new ProbesAtDebug(),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 64 * 1024,
    // Slow clients (http/slow-requests.ts): headers within their timeout, checked every few
    // seconds rather than Node's 30; the whole request, whatever its body, within the longest
    // body deadline (the hook there answers sooner, by the body's own length).
    http: { headersTimeout: slowRequests.headersTimeoutMs, connectionsCheckingInterval: Math.min(5_000, slowRequests.headersTimeoutMs) },
    requestTimeout: slowRequests.headersTimeoutMs + bodyDeadlineMs(slowRequests, limits.attachmentCiphertextMaxBytes) + 60_000,
    exposeHeadRoutes: false,
    // While closing, a request arriving on an open connection gets our own 503 (below): an
    // `{error, code}` body with Retry-After, where Fastify's has neither.
    return503OnClosing: false,
    clientErrorHandler: refuseUnparsable,
    // Requests parsed and answers checked by the route table's zod schemas (http/routes.ts). Given
    // here rather than set afterwards, Fastify never loads Ajv and fast-json-stringify, which
    // would cost a tenth of a second of every start for compilers that are never used.
    schemaController: { compilersFactory: zodCompilers },
  });
  // Only JSON bodies: a cross-site form cannot post text/plain or urlencoded to us.
  app.removeContentTypeParser('text/plain');

  // Fails at once while Redis is away (the store then counts in memory), rather than queueing.
  // ioredis is loaded only when used: importing it costs a tenth of a second of every start.
  const rateLimitRedis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 1000,
      })
    : undefined;
  if (rateLimitRedis) {
    // Reported once per outage by the store, below; the last one kept for the warning at start.
    let lastError: unknown;
    rateLimitRedis.on('error', (err) => (lastError = err));
    // Redis away at start is no reason not to serve: ioredis keeps trying, with back-off, and the
    // readiness check says 503 until it answers.
    rateLimitRedis
      .connect()
      .catch(() =>
        app.log.warn({ err: lastError }, 'Redis unreachable at start: retrying; rate limits counted in this instance’s memory meanwhile'),
      );
  }
  // The per-route limits, the sign-in failures (auth/routes.ts) and the member frames' limits count through one counter.
  const counter = new WindowCounter(rateLimitRedis, (err) =>
    app.log.warn({ err }, 'rate limits counted in this instance’s memory until Redis answers'),
  );

  // One bound for the HTTP requests and the socket tasks that work on the database.
  const gate = new WorkGate(config.maxInFlight, config.requestLimits?.degradedForMs);
  const gateway = new Gateway(db, bus, app.log, gate, frameLimits(db, config, counter));
  const blocks = new BlockList(db, app.log);
  blocks.onReload(() => gateway.closeBlocked((ip) => blocks.isBlocked(ip)));
  await blocks.start(bus);
  const attachmentStore = await openAttachmentStore(config.attachments.store, config.dataDir);
  const scrubber = new Scrubber(db, config.erasureScrubMs, app.log);
  const tally = new Tally();
  const push = new PushSender(
    db,
    {
      keys: await ensureVapidKeys(db),
      subject: vapidSubject(config),
      allowedOrigins: config.pushEndpointAllow,
      caFile: config.pushEndpointCa,
    },
    app.log,
  );
  // Half the database's connections at most (the embedded database's one), leaving the rest to
  // reads and the other writes.
  const sends = new GroupCommit(db, SEND_BATCH_MAX, Math.max(1, Math.floor(connectionsOf(db) / 2)));
  const ctx: AppContext = { db, config, gateway, blocks, attachments: attachmentStore, gate, scrubber, tally, push, sends };
  const stopSweeping = startSweeping(db, attachmentStore, {
    orphanAfterMs: config.attachments.orphanAfterMs,
    everyMs: config.attachments.sweepEveryMs,
    log: app.log,
  });
  registerErrorHandler(app);
  // Draining (close() below): new requests on connections still open are sent elsewhere, and the
  // connections of requests in flight close once answered.
  let draining = false;
  const readiness = new Readiness(
    {
      database: () => db.execute(sql`select 1`),
      ...(config.redisUrl ? { redis: () => Promise.all([bus.ping?.(), rateLimitRedis?.ping()]) } : {}),
    },
    gate,
  );
  app.addHook('onRequest', async (req) => {
    // The readiness check answers for itself while draining: 503, reason "draining".
    if (draining && req.routeOptions.url !== routes.ready.path) throw shuttingDown();
  });
  app.addHook('onSend', async (_req, reply) => {
    if (draining) reply.header('connection', 'close');
  });
  registerBodyDeadline(app, db, slowRequests);
  registerOverloadGate(app, gate);
  // Before the routes, whose requests it counts; never on the public port.
  const metrics = config.metrics
    ? await serveMetrics({ app, gateway, bus, gate, db, tally, draining: () => draining }, config.metrics)
    : null;
  // Before @fastify/websocket's own preClose (which closes with no code): 1001 "going away", so
  // that clients reconnect at once; by then no new connection is accepted.
  app.addHook('preClose', async () => gateway.goingAway());
  await app.register(fastifyCookie);
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Radix primitives position popovers with inline style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        // blob: for attachments shown after decryption in the page (never a remote image).
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        // The install manifest and the service worker (/manifest.webmanifest, /sw.js): our own files only.
        manifestSrc: ["'self'"],
        workerSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    // Sent below, and only over HTTPS: a browser ignores it over plain HTTP.
    strictTransportSecurity: false,
  });
  // req.protocol believes X-Forwarded-Proto only from a trusted proxy (TRUST_PROXY). A private
  // network's answers, pages, files and API alike, are for no search engine (robots.txt too: http/web-app.ts).
  app.addHook('onSend', async (req, reply) => {
    if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    reply.header('x-robots-tag', 'noindex, nofollow');
  });
  await app.register(fastifyRateLimit, {
    global: false,
    ...(rateLimitRedis
      ? {
          store: redisRateLimitStore(counter, `${config.redisPrefix}:rl:`),
        }
      : {}),
    errorResponseBuilder: (_req, context) =>
      new HttpError(429, errorCodes.rateLimited, `Too many attempts. Access blocked for security. Retry in ${context.after}.`),
    // After the access check (onRequest), before the body is validated: malformed attempts count too.
    hook: 'preValidation',
    // Each refusal is a security event (the heatmap and risk panels count them).
    onExceeded: (req) => {
      recordEvent(db, req, {
        type: eventTypes.rateLimited,
        severity: 'medium',
        userId: req.auth?.user.id ?? null,
        details: { route: req.routeOptions.url },
      }).catch((err: unknown) => req.log.error({ err }, 'could not record a rate-limit event'));
    },
  });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 1024 * 1024 },
    // A client breaking the WebSocket protocol (say, a frame over maxPayload) is its own fault:
    // note it and drop it, without an error line any client could write at will.
    errorHandler: (err, socket, req) => onSocketError(req.log, err, socket),
  });

  registerAccessControl(app, db, opts.masterKeys, config.rateLimits.masterKey, blocks, gate);
  // CSRF: state changes and socket upgrades only from our own origin.
  const ownOrigin = originCheck(config);
  app.addHook('onRequest', async (req) => {
    const origin = req.headers.origin;
    const guarded = req.method !== 'GET' && req.method !== 'HEAD' ? true : req.url.startsWith(SOCKET_PATH);
    if (guarded && origin && !ownOrigin(origin, req.host)) {
      throw new HttpError(403, errorCodes.forbidden, 'Cross-origin request refused');
    }
  });

  // The OpenAPI document lists the route table's routes (tagged in http/routes.ts), nothing else.
  await app.register(fastifySwagger, {
    openapi: { info: { title: 'Enclave', version: '1' } },
    transform: jsonSchemaTransform,
    hideUntagged: true,
    // HEAD /api/health is a route of its own, not the shadow of a GET.
    exposeHeadRoutes: true,
  });
  await app.register(serviceRoutes, { ctx, readiness });
  await app.register(socketRoute, { gateway });
  await app.register(keyRoutes, { ctx });
  await app.register(authRoutes, { ctx, failures: counter, failurePrefix: `${config.redisPrefix}:rl:login-failures:` });
  await app.register(userRoutes, { ctx });
  await app.register(conversationRoutes, { ctx });
  await app.register(channelKeyRoutes, { ctx });
  await app.register(messageRoutes, { ctx });
  await app.register(groupRoutes, { ctx });
  await app.register(attachmentRoutes, { ctx });
  await app.register(creatorRoutes, { ctx });
  await app.register(securityRoutes, { ctx });
  await app.register(p2pRoutes, { ctx });
  await app.register(readReceiptRoutes, { ctx });
  await app.register(pushRoutes, { ctx });

  await registerWebApp(app, config);

  return {
    app,
    ctx,
    gateway,
    blocks,
    attachments: attachmentStore,
    gate,
    scrubber,
    metrics,
    /**
     * Drains: stops accepting connections, closes sockets with 1001, answers what is in flight
     * (Fastify waits for it), then removes this instance's presence and writes the security events
     * held in memory, before the caller closes the database.
     */
    close: async () => {
      draining = true;
      readiness.draining = true;
      await app.close();
      await gateway.close().catch((err: unknown) => app.log.warn({ err }, 'could not clear this instance’s presence'));
      await blocks.close();
      stopSweeping();
      await push.close();
      // After the sweeps and routes that erase: what they erased leaves the files before the database closes.
      await scrubber.close();
      await attachmentStore.close();
      // Repeats of security events held in memory (security/events.ts), before the database closes.
      await flushSecurityEvents(db);
      rateLimitRedis?.disconnect();
      await metrics?.close();
    },
  };
}

/**
 * A request Node's HTTP parser refuses before any route (a header block over 16 KiB, a malformed
 * request line, headers not in within their timeout) is answered in our error shape too,
 * `{error, code}`, and the connection closed.
 */
function refuseUnparsable(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  // Node's headersTimeout or requestTimeout (http/slow-requests.ts).
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const [status, reason, error] = tooLarge
    ? [431, 'Request Header Fields Too Large', 'Request headers and URL must fit in 16 KiB']
    : timedOut
      ? [408, 'Request Timeout', 'The request did not arrive in time']
      : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error, code: errorCodes.invalidRequest });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Fastify's `trustProxy` for our setting. A hop count becomes a function trusting the last `hops`
 * addresses (the socket's peer is hop 0): Fastify 5.12.1 and later read a plain number as "trust
 * nothing", which would count every client under the proxy's address. Either way Fastify takes
 * `X-Forwarded-Proto` and `X-Forwarded-Host` only when the socket's peer is trusted, and then
 * only their right-most entry, the one the trusted proxy next to us wrote.
 */
export function fastifyTrustProxy(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.addresses;
}

/**
 * Whether a request's `Origin` is one of ours (docs/security.md §6). With PUBLIC_ORIGIN, exactly
 * those origins (scheme, host and port), whatever `Host` a proxy passes on. Without it, the origin
 * of http://HOST:PORT, or any origin whose host is the one the request names (`req.host`: `Host`,
 * or `X-Forwarded-Host` from a trusted proxy), so that local development keeps working.
 */
export function originCheck(config: Pick<Config, 'publicOrigins' | 'host' | 'port'>): (origin: string, requestHost: string) => boolean {
  const parse = (origin: string) => {
    try {
      return new URL(origin);
    } catch {
      return null;
    }
  };
  if (config.publicOrigins) {
    const allowed = new Set(config.publicOrigins);
    return (origin) => {
      const url = parse(origin);
      return url !== null && allowed.has(url.origin);
    };
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const listening = parse(`http://${host}:${config.port}`)?.origin;
  return (origin, requestHost) => {
    const url = parse(origin);
    return url !== null && (url.origin === listening || url.host === requestHost);
  };
}
