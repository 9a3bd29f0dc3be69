/** The server's own routes: health (liveness) and readiness for load balancers, and the API's description. */
import { routes, type RouteResponse } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { build } from '../version';
import type { Readiness } from './readiness';
import { serve } from './routes';

export async function serviceRoutes(app: FastifyInstance, { ctx, readiness }: { ctx: AppContext; readiness: Readiness }): Promise<void> {
  // Degraded (503) while the overload gate refuses work for want of a place, and a few seconds
  // after (http/overload.ts): a load balancer then sends new work elsewhere. One address over its
  // own share does not count, or any client could take every instance out of rotation.
  serve(app, routes.health, async (_req, reply) => {
    if (ctx.gate.degraded()) reply.status(503);
    return undefined;
  });
  // Both answers name the release and commit: which version an instance runs, during an upgrade.
  serve(app, routes.healthGet, async (_req, reply) => {
    if (!ctx.gate.degraded()) return { ok: true as const, ...build };
    reply.status(503);
    return { ok: false as const, status: 'degraded' as const, ...build };
  });
  // Readiness (http/readiness.ts): polled every few seconds, so logged at debug only.
  serve(app, routes.ready, async (req, reply) => {
    const reasons = await readiness.reasons();
    req.log.debug({ reasons }, 'readiness');
    if (reasons.length === 0) return { ok: true as const };
    reply.status(503);
    return { ok: false as const, status: 'not_ready' as const, reasons };
  });
  // Generated from the registered routes' schemas (@fastify/swagger), so it cannot drift from them.
  serve(app, routes.openApi, async () => app.swagger() as RouteResponse<typeof routes.openApi>);
}
