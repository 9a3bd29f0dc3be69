/**
 * Prometheus metrics (docs/operations.md, "Metrics"), on a listener of their own (METRICS_PORT,
 * bound to METRICS_HOST: loopback by default), never on the public port, whose `/metrics` is a 404
 * (web-app.ts). prom-client is loaded only when that listener is configured: it costs a twentieth
 * of a second of a start.
 *
 * Requests are labelled by their route's template (`/api/messages/:id`), never the URL a client
 * wrote, so that no caller can make the series grow; what matched no route is `unmatched`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { routes } from '@enclave/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { embeddedClient, isDatabaseUnavailable, type Db } from '../db/client';
import type { Bus } from '../realtime/bus';
import type { Gateway } from '../realtime/gateway';
import { OverloadedError, type WorkGate } from './overload';

/** Counts kept whether or not metrics are served: plain numbers, read at each scrape. */
export class Tally {
  /** Messages stored by a send (a resend of a stored message is not counted again). */
  sendsStored = 0;
}

export type MetricsSources = {
  app: FastifyInstance;
  gateway: Gateway;
  bus: Bus;
  gate: WorkGate;
  db: Db;
  tally: Tally;
  draining: () => boolean;
};

export type MetricsListener = { url: string; registry: Registry; close: () => Promise<void> };

/** Polls that say nothing of the traffic: not counted as refusals. */
const probes = new Set<string | undefined>([routes.health.path, routes.ready.path]);

/** Why a request was refused with 503, for `enclave_http_refusals_total`. */
function refusalReason(err: unknown, draining: boolean): string {
  if (err instanceof OverloadedError) return 'overload';
  if (isDatabaseUnavailable(err)) return 'database';
  if (draining) return 'draining';
  return 'unavailable';
}

/**
 * Registers the request hooks (call before the routes) and, once listening, serves the metrics
 * at `/metrics` on `listen`.
 */
export async function serveMetrics(sources: MetricsSources, listen: { port: number; host: string }): Promise<MetricsListener> {
  const { app, gateway, gate, db, tally } = sources;
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = await import('prom-client');
  const registry = new Registry();
  // Event-loop delay, memory, CPU, handles: prom-client's own names (nodejs_*, process_*).
  collectDefaultMetrics({ register: registry });

  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'enclave_http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'enclave_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and status',
    labelNames,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'enclave_http_refusals_total',
    help: 'Requests refused with 503 or 429, by reason (overload, database, draining, unavailable, rate_limit)',
    labelNames: ['status', 'reason'],
    registers: [registry],
  });
  /** A counter whose value is a number kept elsewhere. */
  const countedElsewhere = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  countedElsewhere(
    'enclave_frames_delivered_total',
    'Frames from the bus handed to this instance’s sockets',
    () => gateway.framesDelivered,
  );
  countedElsewhere('enclave_messages_stored_total', 'Messages stored by sends to this instance', () => tally.sendsStored);
  new Gauge({
    name: 'enclave_sockets_open',
    help: 'WebSocket connections open on this instance',
    registers: [registry],
    collect() {
      this.set(app.websocketServer?.clients.size ?? 0);
    },
  });
  new Gauge({
    name: 'enclave_work_in_flight',
    help: 'Requests and socket tasks holding a place of the overload gate (MAX_IN_FLIGHT)',
    registers: [registry],
    collect() {
      this.set(gate.held);
    },
  });
  new Gauge({ name: 'enclave_work_max', help: 'Places of the overload gate (MAX_IN_FLIGHT)', registers: [registry] }).set(gate.max);
  // Redis only: an in-process bus has no lag to speak of.
  if (sources.bus.observeLag) {
    const lag = new Histogram({
      name: 'enclave_bus_lag_seconds',
      help: 'From publishing a bus event to hearing it back from Redis (this instance’s own events)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    sources.bus.observeLag((seconds) => lag.observe(seconds));
  }
  // The PostgreSQL pool (node-postgres); the embedded database has none.
  const pool = embeddedClient(db)
    ? null
    : ((db as { $client?: { totalCount: number; idleCount: number; waitingCount: number } }).$client ?? null);
  if (pool) {
    new Gauge({
      name: 'enclave_db_pool_connections',
      help: 'PostgreSQL pool connections: total (open), idle, and waiting (queries waiting for one)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  // The error a request was answered with (onError comes before the error handler sets the status).
  const errors = new WeakMap<FastifyRequest, unknown>();
  app.addHook('onError', async (req, _reply, err) => {
    errors.set(req, err);
  });
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(status) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    if ((status === 503 || status === 429) && !probes.has(req.routeOptions.url)) {
      refusals.inc({ status: labels.status, reason: status === 429 ? 'rate_limit' : refusalReason(errors.get(req), sources.draining()) });
    }
  });

  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        app.log.error({ err }, 'could not collect the metrics');
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    registry,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
