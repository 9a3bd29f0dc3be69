/**
 * The production layout of docs/operations.md §5, in miniature: instances of the built server on
 * a private PostgreSQL and a private Redis, behind the proxy, with members chatting through it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import pg from 'pg';
import { joinAll, seed, type LiveMember } from './chat';
import { generateKeys, Instance, instanceEnv } from './instance';
import { startProxy, type Proxy } from './proxy';
import { freePort, startPostgres, startRedis, type Postgres, type RedisServer } from './services';

export type Cluster = {
  postgres: Postgres;
  redis: RedisServer;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  proxy: Proxy;
  instances: Instance[];
  members: LiveMember[];
  /** Ids of the rows of the general channel, from PostgreSQL itself. */
  stored(): Promise<number[]>;
  /** Runs SQL on the database, as the test and not as a server. */
  sql<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
};

/**
 * Starts `instances` servers behind the proxy and `members` members, whose sockets alternate over
 * the instances (member 0 on instance 0, member 1 on instance 1, …), and sends the seed message.
 * `build`: the built server they run (an earlier release's, support/release.ts), this checkout's by default.
 */
export async function startCluster(opts: {
  name: string;
  instances: number;
  members: number;
  env?: Record<string, string>;
  build?: string;
}): Promise<Cluster> {
  const postgres = await startPostgres();
  const redis = await startRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-faults-data-'));
  const parts: Partial<Cluster> & { instances: Instance[]; members: LiveMember[] } = { postgres, redis, instances: [], members: [] };
  const close = async () => {
    await Promise.all(parts.members.map((m) => m.stop()));
    await Promise.all(parts.instances.map((i) => i.kill()));
    await parts.proxy?.close();
    await redis.remove();
    postgres.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const databaseUrl = await postgres.createDatabase(`enclave_${opts.name}`);
    const ports: number[] = [];
    for (let i = 0; i < opts.instances; i++) ports.push(await freePort());
    const proxy = (parts.proxy = await startProxy(ports));
    const env = instanceEnv({
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `faults-${opts.name}`,
      DATA_DIR: dataDir,
      TRUST_PROXY: '1',
      PUBLIC_ORIGIN: proxy.url,
      // Sign-ups come from one address here: windows short enough not to stand in the way.
      RATE_LIMIT_WINDOW_MS: '100',
      ...opts.env,
    });
    // One after another: the first applies the migrations.
    for (const port of ports) parts.instances.push(await Instance.start(port, env, opts.build));
    // Members of an earlier release's instances are that release's clients: no share key.
    parts.members = await joinAll(proxy.url, await generateKeys(env, opts.members), opts.name, {
      withoutShareKey: opts.build !== undefined,
    });
    await seed(parts.members);
    const sql = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query<T>(text, values)).rows;
      } finally {
        await client.end();
      }
    };
    return {
      postgres,
      redis,
      databaseUrl,
      env,
      proxy,
      instances: parts.instances,
      members: parts.members,
      stored: async () =>
        (await sql<{ id: string }>('SELECT id FROM messages WHERE conversation_id = $1', [GENERAL_CONVERSATION])).map((r) => Number(r.id)),
      sql,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
