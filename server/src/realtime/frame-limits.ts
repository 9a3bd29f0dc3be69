/**
 * The rate limits of member frames (clientFrames' `rateLimit`), counted per member over all their
 * sockets by the counter the HTTP limits use (Redis across instances, else this instance's memory),
 * and each refusal recorded for the security monitor.
 */
import type { Config } from '../config';
import type { Db } from '../db/client';
import type { WindowCounter } from '../http/rate-limit-store';
import { eventTypes, recordEvent } from '../security/events';
import type { FrameLimits } from './dispatch';

export function frameLimits(db: Db, config: Pick<Config, 'rateLimits' | 'redisPrefix'>, counter: WindowCounter): FrameLimits {
  return {
    async count(limit, userId) {
      const { max, windowMs } = config.rateLimits[limit];
      const { current, ttl } = await counter.increment(`${config.redisPrefix}:rl:frames:${limit}:${userId}`, windowMs);
      return current > max ? ttl : 0;
    },
    async refused({ userId, origin }, frame) {
      await recordEvent(db, origin, { type: eventTypes.rateLimited, severity: 'medium', userId, details: { frame: frame.type } });
    },
  };
}
