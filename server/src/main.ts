import fs from 'node:fs';
import module from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import { attachmentsDirOf } from './attachments/store';
import { defaultRateLimits, loadConfig } from './config';
import { ensureMasterKey } from './creator/master-key';
import { openDatabase } from './db/client';
import { announceMasterKey, createLogger } from './logging';
import { startOperatorSocket } from './operator/socket';
import { BUS_VERSION, BusEventRefused, memoryBus, redisBus } from './realtime/bus';
import { build } from './version';

/** Longest a shutdown may take before the process exits anyway. */
const DRAIN_DEADLINE_MS = 20_000;

/** Made once the configuration is read: from then on every line on standard output is JSON. */
let processLog: FastifyBaseLogger | undefined;

async function main(): Promise<void> {
  // Node keeps the compiled bundle between starts (in its temporary directory): a restart skips it.
  module.enableCompileCache?.();
  const config = loadConfig();
  const log = (processLog = createLogger(config.logLevel));
  // Which release starts and stops is written whatever LOG_LEVEL says, short of silent.
  const lifecycle = config.logLevel === 'silent' ? log : log.child({}, { level: 'info' });
  lifecycle.info({ version: build.version, commit: build.commit, node: process.version }, `starting Enclave ${build.version}`);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Fastify, its plugins and the routes load while PGlite starts, rather than before it.
  const appModule = import('./app');
  const database = await openDatabase({ ...config, onPoolError: (err) => log.warn({ err }, 'database connection lost while idle') });
  const bus = config.redisUrl
    ? await redisBus(
        config.redisUrl,
        config.redisPrefix,
        // Redis away (at start, or restarting) is retried with back-off and reported once per
        // outage per connection: a warning; an event this version cannot read is an error.
        (err) => (err instanceof BusEventRefused ? log.error({ err }, 'bus error') : log.warn({ err }, 'bus error')),
        (version) =>
          log.warn(
            { busVersion: version, ownBusVersion: BUS_VERSION },
            `bus: events from instances of bus version ${version} (this one: ${BUS_VERSION}), read as far as this version knows them`,
          ),
      )
    : memoryBus();
  const masterKey = await ensureMasterKey(database.db, config);
  // The key itself goes to a terminal only, never to the log (logging.ts).
  if (masterKey.generated) announceMasterKey(masterKey.generated, log);
  const { buildApp } = await appModule;
  const { app, ctx, close } = await buildApp({
    config,
    db: database.db,
    bus,
    masterKeys: { hash: masterKey.hash, previousHash: masterKey.previousHash },
    logger: log,
  });
  // Every instance serves its operator socket (docs/operations.md §7); one sharing a DATA_DIR with a running one leaves it to that one.
  const operator = await startOperatorSocket(config.dataDir, ctx, attachmentsDirOf(config.attachments.store, config.dataDir));
  if (!operator)
    log.warn(
      { dataDir: config.dataDir },
      'another running instance answers on DATA_DIR/operator.sock: it serves the operator commands; give each instance a DATA_DIR of its own to have one each',
    );

  // SIGTERM (or SIGINT) drains: no new connections, sockets closed with 1001 so that clients
  // reconnect at once elsewhere, requests in flight answered, held security events written, then
  // the database closed. A drain that hangs (a client that never finishes) is cut short.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    lifecycle.info({ signal }, 'shutting down: draining');
    setTimeout(() => {
      app.log.error(`shutdown did not finish within ${DRAIN_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, DRAIN_DEADLINE_MS).unref();
    let status = 0;
    for (const step of [async () => operator?.close(), close, () => bus.close(), () => database.close()]) {
      await step().catch((err: unknown) => {
        app.log.error({ err }, 'shutdown step failed');
        status = 1;
      });
    }
    lifecycle.info('stopped');
    process.exit(status);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // No default window is longer than login's, so it shows whether RATE_LIMIT_WINDOW_MS shortened any.
  if (config.rateLimits.login.windowMs < defaultRateLimits.login.windowMs) {
    log.warn(
      { setting: 'RATE_LIMIT_WINDOW_MS' },
      `RATE_LIMIT_WINDOW_MS: every rate-limit window is at most ${config.rateLimits.login.windowMs} ms (a testing aid, not for production)`,
    );
  }
  if (config.disappearingCapMs !== undefined) {
    log.warn(
      { setting: 'DISAPPEARING_TIMER_CAP_MS' },
      `DISAPPEARING_TIMER_CAP_MS: disappearing messages expire after at most ${config.disappearingCapMs} ms (a testing aid, not for production)`,
    );
  }
  await app.listen({ port: config.port, host: config.host });
  const db = config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`;
  lifecycle.info({ version: build.version, commit: build.commit }, `Enclave is running at http://${config.host}:${config.port} (${db})`);
}

main().catch((err: unknown) => {
  // Before the logger, only the configuration can fail (LOG_LEVEL is part of it): said on standard error.
  if (processLog) processLog.fatal({ err }, 'the server could not start');
  else console.error(err);
  process.exit(1);
});
