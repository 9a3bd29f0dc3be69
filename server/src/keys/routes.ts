import { validateKeyRequestSchema } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { parse } from '../http/errors';
import { validateKey } from './service';

export async function keyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const limit = ctx.config.rateLimits.validateKey;
  app.post(
    '/api/keys/validate',
    { config: { rateLimit: { max: limit.max, timeWindow: limit.windowMs } } },
    async (req) => {
      const { inviteKey } = parse(validateKeyRequestSchema, req.body);
      return validateKey(ctx.db, inviteKey);
    },
  );
}
