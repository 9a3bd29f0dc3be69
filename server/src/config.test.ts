import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultRateLimits, loadConfig } from './config';
import { creatorHeaders } from './testing/harness';
import { TestMember } from './testing/member';
import { oneInstance } from './testing/one-instance';

describe('RATE_LIMIT_WINDOW_MS', () => {
  it('leaves the production limits alone when unset', () => {
    expect(loadConfig({}).rateLimits).toEqual(defaultRateLimits);
  });

  it('caps every window and keeps every count', () => {
    const { rateLimits } = loadConfig({ RATE_LIMIT_WINDOW_MS: '3000' });
    for (const [name, limit] of Object.entries(rateLimits)) {
      const production = defaultRateLimits[name as keyof typeof defaultRateLimits];
      expect(limit, name).toEqual({ max: production.max, windowMs: Math.min(3000, production.windowMs) });
    }
  });

  it('refuses a value that is not a positive whole number of milliseconds', () => {
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(() => loadConfig({ RATE_LIMIT_WINDOW_MS: bad }), bad).toThrow();
  });
});

describe('DISAPPEARING_TIMER_CAP_MS', () => {
  it('is unset by default, a positive whole number of milliseconds otherwise', () => {
    expect(loadConfig({}).disappearingCapMs).toBeUndefined();
    expect(loadConfig({ DISAPPEARING_TIMER_CAP_MS: '45000' }).disappearingCapMs).toBe(45_000);
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(() => loadConfig({ DISAPPEARING_TIMER_CAP_MS: bad }), bad).toThrow();
  });
});

describe('DATABASE_POOL_MAX', () => {
  it('is 10 unless set, and refuses what is not a whole number from 1 to 1000', () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '30' }).databasePoolMax).toBe(30);
    for (const bad of ['0', '1001', '2.5', 'many']) expect(() => loadConfig({ DATABASE_POOL_MAX: bad }), bad).toThrow(/DATABASE_POOL_MAX/);
  });
});

describe('METRICS_PORT and METRICS_HOST', () => {
  it('serve no metrics unless METRICS_PORT is set, and then on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ port: 9464, host: '10.0.0.5' });
    for (const bad of ['-1', '65536', 'metrics']) expect(() => loadConfig({ METRICS_PORT: bad }), bad).toThrow(/METRICS_PORT/);
  });
});

describe('ICE_SERVERS', () => {
  it('is none when unset, and a list of STUN/TURN URLs otherwise', () => {
    expect(loadConfig({}).iceServers).toEqual([]);
    expect(
      loadConfig({ ICE_SERVERS: ' stun:stun.example.org:3478, turn:turn.example.org?transport=tcp,turns:[2001:db8::1]:5349 ' }).iceServers,
    ).toEqual(['stun:stun.example.org:3478', 'turn:turn.example.org?transport=tcp', 'turns:[2001:db8::1]:5349']);
  });

  it('refuses anything else, naming the entry', () => {
    for (const bad of ['https://stun.example.org', 'stun:', 'turn:user:pass@turn.example.org', 'stun:host?transport=sctp']) {
      expect(() => loadConfig({ ICE_SERVERS: bad }), bad).toThrow(/ICE_SERVERS must list STUN\/TURN URLs/);
    }
  });
});

describe('TURN_SECRET', () => {
  const turn = 'stun:turn.example.org:3478,turn:turn.example.org:3478?transport=udp';
  it('is kept beside a turn: URL', () => {
    expect(loadConfig({ ICE_SERVERS: turn, TURN_SECRET: 'a-long-shared-secret' }).turnSecret).toBe('a-long-shared-secret');
  });

  it('refuses a short secret, and a secret with no TURN server to use it with', () => {
    expect(() => loadConfig({ ICE_SERVERS: turn, TURN_SECRET: 'short' })).toThrow(/TURN_SECRET must be at least 16 characters/);
    expect(() => loadConfig({ ICE_SERVERS: 'stun:stun.example.org', TURN_SECRET: 'a-long-shared-secret' })).toThrow(
      /ICE_SERVERS lists no turn: or turns: URL/,
    );
  });
});

describe('MASTER_KEY and MASTER_KEY_PREVIOUS', () => {
  const oldKey = '0a'.repeat(64);
  const newKey = '0b'.repeat(64);
  it('keep the previous key beside the current one during a rotation, and none otherwise', () => {
    expect(loadConfig({ MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: oldKey })).toMatchObject({ masterKey: newKey, masterKeyPrevious: oldKey });
    expect(loadConfig({ MASTER_KEY: newKey }).masterKeyPrevious).toBeUndefined();
  });

  it.each([
    ['a malformed MASTER_KEY', { MASTER_KEY: 'secret' }, /MASTER_KEY must be 128 lowercase hexadecimal characters/],
    [
      'a previous key in capitals',
      { MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: oldKey.toUpperCase() },
      /MASTER_KEY_PREVIOUS must be 128 lowercase hexadecimal characters/,
    ],
    [
      'a previous key too short',
      { MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: oldKey.slice(2) },
      /MASTER_KEY_PREVIOUS must be 128 lowercase hexadecimal characters/,
    ],
    [
      'the previous key equal to the current one',
      { MASTER_KEY: newKey, MASTER_KEY_PREVIOUS: newKey },
      /MASTER_KEY_PREVIOUS equals MASTER_KEY/,
    ],
    ['a previous key without a current one', { MASTER_KEY_PREVIOUS: oldKey }, /MASTER_KEY_PREVIOUS is set without MASTER_KEY/],
  ])('refuse %s at start, naming the setting and never the key', (_case, env, message) => {
    let error: Error | undefined;
    try {
      loadConfig(env);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(message);
    for (const value of Object.values(env)) expect(error?.message).not.toContain(value.slice(0, 16));
  });
});

describe('short windows, same counts (RATE_LIMIT_WINDOW_MS=2000)', () => {
  const windowMs = 2000;
  const suite = oneInstance('pglite', { config: { rateLimits: loadConfig({ RATE_LIMIT_WINDOW_MS: String(windowMs) }).rateLimits } });
  let anon: InstanceType<typeof TestMember.Anonymous>;
  beforeAll(async () => {
    anon = new TestMember.Anonymous(suite.server.url);
  });
  // The counters' windows are read off Date.now in this process: the clock is moved past one.
  afterEach(() => {
    vi.useRealTimers();
  });
  const pastTheWindow = () => vi.setSystemTime(Date.now() + windowMs);

  it('refuses the sixth login within the window and takes logins again after it', async () => {
    const login = async () => (await anon.request('POST', '/api/auth/login', { loginKey: 'd'.repeat(64) })).status;
    vi.useFakeTimers({ toFake: ['Date'] });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await login());
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    pastTheWindow();
    expect(await login()).toBe(401);
  });

  it('blocks the sixth wrong master key within the window, never the right key, and lifts after it', async () => {
    const wrong = async () =>
      (await anon.request('GET', '/api/super-admin/overview', undefined, { authorization: `SuperAdmin ${'ef'.repeat(64)}` })).status;
    vi.useFakeTimers({ toFake: ['Date'] });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await wrong());
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    expect((await anon.request('GET', '/api/super-admin/overview', undefined, creatorHeaders)).status).toBe(200);
    pastTheWindow();
    expect(await wrong()).toBe(403);
  });
});
