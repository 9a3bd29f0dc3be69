import { validateKeyRequestSchema } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { parse } from '../http/errors';
import { eventTypes, recordEvent } from '../security/events';
import { validateKey } from './service';

export async function keyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const limit = ctx.config.rateLimits.validateKey;
  app.post(
    '/api/keys/validate',
    { config: { rateLimit: { max: limit.max, timeWindow: limit.windowMs } } },
    async (req) => {
      const { inviteKey } = parse(validateKeyRequestSchema, req.body);
      const { result, row } = await validateKey(ctx.db, inviteKey);
      if (row?.isCanary) {
        await recordEvent(ctx.db, req, {
          type: eventTypes.canaryKey,
          severity: 'critical',
          details: { keyId: row.id, action: 'validate' },
        });
      } else if (!result.valid) {
        await recordEvent(ctx.db, req, { type: eventTypes.keyRefused, severity: 'low', details: { reason: result.reason } });
      }
      return result;
    },
  );
}
