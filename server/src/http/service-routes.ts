/** The server's own routes: health for load balancers and clients, and the API's description. */
import { routes, type RouteResponse } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { serve } from './routes';

export async function serviceRoutes(app: FastifyInstance, _opts: { ctx: AppContext }): Promise<void> {
  serve(app, routes.health, async () => undefined);
  serve(app, routes.healthGet, async () => ({ ok: true as const }));
  // Generated from the registered routes' schemas (@fastify/swagger), so it cannot drift from them.
  serve(app, routes.openApi, async () => app.swagger() as RouteResponse<typeof routes.openApi>);
}
