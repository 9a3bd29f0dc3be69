import path from 'node:path';
import { z } from 'zod';

/** Per-route rate limits: `max` requests per `windowMs`. The server enforces them; the client's are a courtesy. */
const limitSchema = z.object({ max: z.number().int().positive(), windowMs: z.number().int().positive() });

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(5000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Redis key and channel: deployments (and test runs) sharing a Redis stay apart. */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/).default('enclave'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Set when a reverse proxy terminates TLS in front of us: then forwarded-for and https are believed. */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** The creator's master key, 128 lowercase hex; generated at the first start when absent. */
  MASTER_KEY: z.string().optional(),
  /**
   * A testing aid: caps the window of every per-address limit at this many milliseconds, counts
   * unchanged, so a test waits seconds, not minutes, for a limit to lift. Unset in production.
   */
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().optional(),
});

export const configSchema = z.object({
  port: z.number(),
  host: z.string(),
  dataDir: z.string(),
  databaseUrl: z.string().optional(),
  redisUrl: z.string().optional(),
  redisPrefix: z.string(),
  production: z.boolean(),
  logLevel: z.string(),
  trustProxy: z.boolean(),
  masterKey: z.string().optional(),
  /** Built web app to serve; absent in API-only tests. */
  webDist: z.string().optional(),
  rateLimits: z.object({
    login: limitSchema,
    validateKey: limitSchema,
    register: limitSchema,
    send: limitSchema,
    epoch: limitSchema,
    /** Wrong master keys per address; counted in the security events, so it holds across instances. */
    masterKey: limitSchema,
  }),
});
export type Config = z.infer<typeof configSchema>;

export const defaultRateLimits: Config['rateLimits'] = {
  // Specification section 5: five login attempts per 60 s.
  login: { max: 5, windowMs: 60_000 },
  validateKey: { max: 30, windowMs: 60_000 },
  register: { max: 10, windowMs: 60_000 },
  send: { max: 30, windowMs: 10_000 },
  // A rotation writes one share per member: far rarer than messages.
  epoch: { max: 20, windowMs: 60_000 },
  masterKey: { max: 5, windowMs: 60_000 },
};

/**
 * The limits with no window longer than `capMs` (RATE_LIMIT_WINDOW_MS): the same counts over a
 * shorter time, so tests of the limits need not wait out a real minute.
 */
export function rateLimitsWithWindowCap(limits: Config['rateLimits'], capMs: number | undefined): Config['rateLimits'] {
  if (capMs === undefined) return limits;
  const capped = (l: { max: number; windowMs: number }) => ({ max: l.max, windowMs: Math.min(l.windowMs, capMs) });
  return {
    login: capped(limits.login),
    validateKey: capped(limits.validateKey),
    register: capped(limits.register),
    send: capped(limits.send),
    epoch: capped(limits.epoch),
    masterKey: capped(limits.masterKey),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = envSchema.parse(env);
  return {
    port: e.PORT,
    host: e.HOST,
    // Relative to where the command was typed (npm runs workspace scripts inside server/).
    dataDir: path.resolve(env.INIT_CWD ?? process.cwd(), e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    production: e.NODE_ENV === 'production',
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY === 'true',
    masterKey: e.MASTER_KEY,
    webDist: path.resolve(import.meta.dirname, '../../web/dist'),
    rateLimits: rateLimitsWithWindowCap(defaultRateLimits, e.RATE_LIMIT_WINDOW_MS),
  };
}
