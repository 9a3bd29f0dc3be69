// Does a service of the production-path tests answer? `node scripts/probe-service.mjs postgres URL`
// runs `select 1`, `... redis URL` a PING. Exits 0 when it answers; otherwise prints the address
// (password hidden) and the reason, and exits 1.
import pg from 'pg';
import { Redis } from 'ioredis';

const [kind, url] = process.argv.slice(2);
const TIMEOUT_MS = 3000;

function shown(address) {
  try {
    const u = new URL(address);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return address;
  }
}

async function postgres(address) {
  const client = new pg.Client({ connectionString: address, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}

async function redis(address) {
  const client = new Redis(address, {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // connect() rejects with "Connection is closed"; the reason (ECONNREFUSED...) comes as an event.
  let cause = null;
  client.on('error', (err) => (cause ??= err));
  try {
    await client.connect();
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`PING answered ${answer}`);
  } catch (err) {
    throw cause ?? err;
  } finally {
    client.disconnect();
  }
}

const probes = { postgres, redis };
if (!(kind in probes) || !url) {
  console.error('usage: node scripts/probe-service.mjs postgres|redis URL');
  process.exit(2);
}
try {
  await probes[kind](url);
} catch (err) {
  const reason = err instanceof Error ? err.message || err.constructor.name : String(err);
  console.log(`${shown(url)} (${reason})`);
  process.exit(1);
}
