/**
 * Rotating the master key (docs/operations.md §6): the rule as a table, one instance restarted
 * through a rotation on the embedded database, and a rolling rotation of two instances on
 * PostgreSQL and Redis during which the creator is never refused.
 */
import { routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../auth/sessions';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { securityEvents } from '../db/schema';
import { backends, makeDatabase, redisEnabled, startServer, type Backend, type TestServer } from '../testing/harness';
import { ensureMasterKey, whichMasterKey, type MasterKeyHashes } from './master-key';

const OLD = '0a'.repeat(64);
const NEW = '0b'.repeat(64);
const STRANGER = '0c'.repeat(64);

/** The three configurations of a rotation: before, during (a), after (b). */
const before: Partial<Config> = { masterKey: OLD };
const during: Partial<Config> = { masterKey: NEW, masterKeyPrevious: OLD };
const after: Partial<Config> = { masterKey: NEW };

/** The creator's overview with `key`: the status only. */
const overview = async (server: TestServer, key: string) =>
  (await fetch(server.url + routes.overview.path, { headers: { authorization: `SuperAdmin ${key}` } })).status;

describe('which key an instance accepts', () => {
  const hashesOf = (c: Partial<Config>): MasterKeyHashes => ({
    hash: sha256Hex(c.masterKey!),
    previousHash: c.masterKeyPrevious && sha256Hex(c.masterKeyPrevious),
  });
  it.each([
    ['before the rotation', before, OLD, 'current'],
    ['before the rotation', before, NEW, null],
    ['during it (MASTER_KEY_PREVIOUS set)', during, OLD, 'previous'],
    ['during it (MASTER_KEY_PREVIOUS set)', during, NEW, 'current'],
    ['during it (MASTER_KEY_PREVIOUS set)', during, STRANGER, null],
    ['after it (MASTER_KEY_PREVIOUS unset)', after, OLD, null],
    ['after it (MASTER_KEY_PREVIOUS unset)', after, NEW, 'current'],
    ['before the rotation', before, STRANGER, null],
  ] as const)('%s, %s: %s', (_when, config, key, match) => {
    expect(whichMasterKey(key, hashesOf(config))).toBe(match);
  });
});

/** Starts and closes servers of one database in turn, as a restart would. */
function restarts(backend: Backend) {
  const state = {} as { database: Database; drop: () => Promise<void>; running: TestServer[] };
  beforeAll(async () => {
    ({ database: state.database, drop: state.drop } = await makeDatabase(backend));
    state.running = [];
  });
  afterAll(async () => {
    for (const s of state.running) await s.close();
    await state.database?.close();
    await state.drop?.();
  });
  return {
    state,
    start: async (config: Partial<Config>, redis = false) => {
      const server = await startServer(state.database, { config, redis });
      state.running.push(server);
      return server;
    },
    stop: async (server: TestServer) => {
      state.running.splice(state.running.indexOf(server), 1);
      await server.close();
    },
  };
}

describe('one instance restarted through a rotation (embedded database)', () => {
  const { state, start, stop } = restarts('pglite');
  const previousUses = async () =>
    (await state.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'master_key_previous_used'))).reduce(
      (n, e) => n + Number(e.details.count ?? 1),
      0,
    );
  // Wrong keys count against the address (5 a minute): each step forgets those of the one before.
  afterEach(() => state.database.db.delete(securityEvents).where(eq(securityEvents.type, 'master_key_failed')));

  it.each([
    ['before the rotation', before, { old: 200, new: 403, stranger: 403 }],
    ['during it', during, { old: 200, new: 200, stranger: 403 }],
    ['after it', after, { old: 403, new: 200, stranger: 403 }],
  ] as const)('%s: %j', async (_when, config, expected) => {
    const server = await start(config);
    try {
      const [old, fresh, stranger] = await Promise.all([OLD, NEW, STRANGER].map((k) => overview(server, k)));
      expect({ old, new: fresh, stranger }).toEqual(expected);
    } finally {
      await stop(server);
    }
  });

  it('records each use of the previous key, and the compliance panel warns while it is accepted', async () => {
    const uses = await previousUses();
    const rotating = await start(during);
    try {
      for (let i = 0; i < 3; i++) expect(await overview(rotating, OLD)).toBe(200);
      expect(await overview(rotating, NEW)).toBe(200);
      await expect.poll(previousUses).toBe(uses + 3);
      const panel = await fetch(rotating.url + routes.compliance.path, { headers: { authorization: `SuperAdmin ${NEW}` } });
      const rotation = ((await panel.json()) as { checks: { name: string; status: string; description: string }[] }).checks.find(
        (c) => c.name === 'Master key rotation',
      );
      expect(rotation).toMatchObject({ status: 'warning' });
      expect(rotation?.description).toContain(`used ${uses + 3} times in the last 24 h`);
    } finally {
      await stop(rotating);
    }
    const retired = await start(after);
    try {
      const panel = await fetch(retired.url + routes.compliance.path, { headers: { authorization: `SuperAdmin ${NEW}` } });
      expect(((await panel.json()) as { checks: { name: string }[] }).checks.map((c) => c.name)).not.toContain('Master key rotation');
    } finally {
      await stop(retired);
    }
  });

  it('an instance started without MASTER_KEY accepts the keys the last configured start stored', async () => {
    const stored = () => ensureMasterKey(state.database.db, { dataDir: '/nonexistent' });
    await ensureMasterKey(state.database.db, { ...during, dataDir: '/nonexistent' });
    const rotating = await stored();
    expect([whichMasterKey(OLD, rotating), whichMasterKey(NEW, rotating)]).toEqual(['previous', 'current']);
    await ensureMasterKey(state.database.db, { ...after, dataDir: '/nonexistent' });
    const retired = await stored();
    expect([whichMasterKey(OLD, retired), whichMasterKey(NEW, retired)]).toEqual([null, 'current']);
  });

  it('refuses a bad MASTER_KEY_PREVIOUS before storing anything', async () => {
    for (const [previous, message] of [
      ['0A'.repeat(64), /MASTER_KEY_PREVIOUS must be 128 lowercase hexadecimal characters/],
      ['0a'.repeat(63), /MASTER_KEY_PREVIOUS must be 128 lowercase hexadecimal characters/],
      [NEW, /MASTER_KEY_PREVIOUS equals MASTER_KEY/],
    ] as const) {
      await expect(
        ensureMasterKey(state.database.db, { masterKey: NEW, masterKeyPrevious: previous, dataDir: '/nonexistent' }),
      ).rejects.toThrow(message);
    }
    await expect(ensureMasterKey(state.database.db, { masterKeyPrevious: OLD, dataDir: '/nonexistent' })).rejects.toThrow(
      /MASTER_KEY_PREVIOUS is set without MASTER_KEY/,
    );
  });
});

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('a rolling rotation of two instances (PostgreSQL and Redis)', () => {
  const { start, stop } = restarts('postgres');
  /** The creator's requests, alternating between the two instances, as behind nginx: their statuses, counted. */
  const alternate = async (pair: [TestServer, TestServer], key: string, n = 20) => {
    const tally: Record<number, number> = {};
    for (let i = 0; i < n; i++) {
      const status = await overview(pair[i % 2]!, key);
      tally[status] = (tally[status] ?? 0) + 1;
    }
    return tally;
  };

  it('the old key works throughout (a), the new one everywhere after it, the old one nowhere after (b)', async () => {
    let a = await start(before, true);
    let b = await start(before, true);
    expect(await alternate([a, b], OLD)).toEqual({ 200: 20 });

    // (a) every instance in turn with MASTER_KEY=new, MASTER_KEY_PREVIOUS=old; the creator keeps the old key.
    await stop(a);
    a = await start(during, true);
    expect(await alternate([a, b], OLD, 40)).toEqual({ 200: 40 });
    await stop(b);
    b = await start(during, true);
    expect(await alternate([a, b], OLD, 40)).toEqual({ 200: 40 });
    // Every instance restarted: the creator switches to the new key.
    expect(await alternate([a, b], NEW, 40)).toEqual({ 200: 40 });

    // (b) every instance in turn without MASTER_KEY_PREVIOUS; the creator uses the new key only.
    await stop(a);
    a = await start(after, true);
    expect(await alternate([a, b], NEW, 40)).toEqual({ 200: 40 });
    await stop(b);
    b = await start(after, true);
    expect(await alternate([a, b], NEW, 40)).toEqual({ 200: 40 });

    // The old key is retired on both: refused as any wrong key, and the new one still served.
    expect(await alternate([a, b], OLD, 2)).toEqual({ 403: 2 });
    expect(await alternate([a, b], NEW, 2)).toEqual({ 200: 2 });
  });
});
