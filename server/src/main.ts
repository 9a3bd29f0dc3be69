import fs from 'node:fs';
import { attachmentsDirOf } from './attachments/store';
import { defaultRateLimits, loadConfig } from './config';
import { ensureMasterKey } from './creator/master-key';
import { openDatabase } from './db/client';
import { startOperatorSocket } from './operator/socket';
import { memoryBus, redisBus } from './realtime/bus';

/** Longest a shutdown may take before the process exits anyway. */
const DRAIN_DEADLINE_MS = 20_000;

async function main(): Promise<void> {
  const config = loadConfig();
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // Fastify, its plugins and the routes load while PGlite starts, rather than before it.
  const appModule = import('./app');
  const database = await openDatabase(config);
  const bus = config.redisUrl
    ? await redisBus(config.redisUrl, config.redisPrefix, (err) => console.error('bus error', err))
    : memoryBus();
  const masterKey = await ensureMasterKey(database.db, config);
  if (masterKey.generated) {
    console.log(
      `\nNetwork creator master key (shown once; also saved, readable only by you, in ${masterKey.generated.file}):\n` +
        `${masterKey.generated.key}\n`,
    );
  }
  const { buildApp } = await appModule;
  const { app, close } = await buildApp({ config, db: database.db, bus, masterKeyHash: masterKey.hash });
  const operator = config.databaseUrl ? null : await startOperatorSocket(config.dataDir, database.db, attachmentsDirOf(config.attachments.store, config.dataDir));

  // SIGTERM (or SIGINT) drains: no new connections, sockets closed with 1001 so that clients
  // reconnect at once elsewhere, requests in flight answered, held security events written, then
  // the database closed. A drain that hangs (a client that never finishes) is cut short.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining');
    setTimeout(() => {
      console.error(`shutdown did not finish within ${DRAIN_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, DRAIN_DEADLINE_MS).unref();
    let status = 0;
    for (const step of [async () => operator?.close(), close, () => bus.close(), () => database.close()]) {
      await step().catch((err: unknown) => {
        console.error('shutdown:', err);
        status = 1;
      });
    }
    app.log.info('stopped');
    process.exit(status);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // No default window is longer than login's, so it shows whether RATE_LIMIT_WINDOW_MS shortened any.
  if (config.rateLimits.login.windowMs < defaultRateLimits.login.windowMs) {
    console.warn(`RATE_LIMIT_WINDOW_MS: every rate-limit window is at most ${config.rateLimits.login.windowMs} ms (a testing aid, not for production)`);
  }
  if (config.disappearingCapMs !== undefined) {
    console.warn(`DISAPPEARING_TIMER_CAP_MS: disappearing messages expire after at most ${config.disappearingCapMs} ms (a testing aid, not for production)`);
  }
  await app.listen({ port: config.port, host: config.host });
  const db = config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`;
  console.log(`Enclave is running at http://${config.host}:${config.port} (${db})`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
