/**
 * The scaled-out network of docs/operations.md §5 for a test: two instances of the built server
 * (`EnclaveServer`) on one PostgreSQL database and one Redis prefix of the test's own, behind
 * Debian's nginx with the repository's configuration. `test` from here gives the `network` of
 * network.ts at nginx's address; everything is stopped and dropped after the test.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { newPostgresDatabase, type PostgresDatabase } from './database';
import { Network, test as base } from './network';
import { CLIENT_ADDRESS_HEADER, Nginx, NGINX } from './nginx';
import { E2E_MASTER_KEY, EnclaveServer, freePort } from './server';
import { dropRedisPrefix } from '../../server/src/testing/redis-prefix';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Why the scaled-out tests cannot run here, or null. PostgreSQL and Redis left out by
 * scripts/test-all.sh (TEST_BACKENDS, TEST_REDIS=0) skip them like the other production-path
 * tests; a missing nginx skips them too, except with CI=true, where the test fails on it.
 */
export function scaleOutSkipReason(): string | null {
  if (!(process.env.TEST_BACKENDS ?? 'postgres').split(',').includes('postgres')) return 'no PostgreSQL (TEST_BACKENDS)';
  if (process.env.TEST_REDIS === '0') return 'no Redis (TEST_REDIS=0)';
  if (!fs.existsSync(NGINX) && process.env.CI !== 'true') return `no nginx at ${NGINX} (apt-get install nginx)`;
  return null;
}

export type LoggedRequest = { url: string; status: number | null };

export class TwoInstances {
  private constructor(
    readonly instances: readonly [EnclaveServer, EnclaveServer],
    readonly nginx: Nginx,
    readonly database: PostgresDatabase,
    private readonly redisPrefix: string,
  ) {}

  get url(): string {
    return this.nginx.url;
  }

  static async start(): Promise<TwoInstances> {
    const database = await newPostgresDatabase();
    const redisPrefix = `enclave-e2e-${randomBytes(6).toString('hex')}`;
    // Ports first: nginx's upstream names the instances', and the instances need nginx's address.
    const ports = [await freePort(), await freePort()];
    const proxyPort = await freePort();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      // One proxy in front: the right-most X-Forwarded-For entry is the client, as nginx saw it.
      TRUST_PROXY: '1',
      PUBLIC_ORIGIN: `http://127.0.0.1:${proxyPort}`,
    };
    const instances = ports.map((port) => Object.assign(new EnclaveServer({ env }), { port })) as [EnclaveServer, EnclaveServer];
    let nginx: Nginx | undefined;
    try {
      // One after the other: the first applies the migrations.
      for (const instance of instances) await instance.start();
      nginx = await Nginx.start(proxyPort, ports);
      return new TwoInstances(instances, nginx, database, redisPrefix);
    } catch (err) {
      await Promise.all(instances.map((i) => i.dispose()));
      await nginx?.stop();
      await database.drop();
      throw err;
    }
  }

  /**
   * The requests each instance has logged, in order: URL and status once answered (Fastify logs
   * every request as it arrives and as it completes, the upgrade to /ws included).
   */
  requests(): [LoggedRequest[], LoggedRequest[]] {
    return this.instances.map((instance) => {
      const byId = new Map<string, LoggedRequest>();
      for (const line of instance.log.split('\n')) {
        // Plain lines (the start line) and a last line still being written are not requests.
        if (!line.startsWith('{') || !line.endsWith('}')) continue;
        const entry = JSON.parse(line) as { reqId?: string; msg?: string; req?: { url: string }; res?: { statusCode: number } };
        if (!entry.reqId) continue;
        if (entry.msg === 'incoming request' && entry.req) byId.set(entry.reqId, { url: entry.req.url, status: null });
        const request = byId.get(entry.reqId);
        if (entry.msg === 'request completed' && entry.res && request) request.status = entry.res.statusCode;
      }
      return [...byId.values()];
    }) as [LoggedRequest[], LoggedRequest[]];
  }

  async dispose(): Promise<void> {
    await this.nginx.stop();
    await Promise.all(this.instances.map((i) => i.dispose()));
    await this.database.drop();
    await dropRedisPrefix(REDIS_URL, this.redisPrefix);
  }
}

/** The client address nginx reports for every member's browser (a documentation address, RFC 5737). */
export const MEMBERS_ADDRESS = '203.0.113.10';

export const test = base.extend<{ cluster: TwoInstances }>({
  // Playwright reads a fixture's dependencies from this pattern: none.
  // eslint-disable-next-line no-empty-pattern
  cluster: async ({}, use) => {
    const cluster = await TwoInstances.start();
    await use(cluster);
    await cluster.dispose();
  },
  // The creator's API and the members' browsers reach the network at nginx's address only.
  network: async ({ cluster, browser, playwright }, use) => {
    const api = await playwright.request.newContext({
      baseURL: cluster.url,
      extraHTTPHeaders: { Authorization: `SuperAdmin ${E2E_MASTER_KEY}` },
    });
    // The members' browsers stand for one public address (nginx.ts), which the creator may block.
    const network = new Network(cluster.instances[0], api, browser, cluster.url, { [CLIENT_ADDRESS_HEADER]: MEMBERS_ADDRESS });
    await use(network);
    await network.close();
  },
});

export { expect } from './network';
