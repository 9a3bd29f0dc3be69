/** The network creator's calls (master key only): /api/super-admin/*. */
import { errorCodes, setRoleRequestSchema } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { HttpError, parse } from '../http/errors';
import { eventTypes, recordEvent } from '../security/events';

export async function creatorRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  app.post('/api/super-admin/set-role', async (req) => {
    const { userId, role } = parse(setRoleRequestSchema, req.body);
    const changed = await db.update(users).set({ role }).where(eq(users.id, userId)).returning({ id: users.id });
    if (!changed.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
    await recordEvent(db, req, { type: eventTypes.roleChanged, severity: 'medium', userId, actor: 'creator', details: { role } });
    await ctx.gateway.publish({ kind: 'deliver', to: 'all', frame: { type: 'users_changed' } });
    return { ok: true };
  });
}
