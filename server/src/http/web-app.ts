/**
 * Serves the built web app (`web/dist`) and answers every unknown path: robots.txt, the JSON 404
 * for API paths, index.html for the app's own routes.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { API_PREFIX, errorCodes, SOCKET_PATH } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';

/** Vite names every file under assets/ by its content hash, so a name never changes meaning. */
const hashedDir = 'assets';
const immutable = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: browsers must ask (cheaply, by ETag) on every load. */
const revalidate = 'no-cache';
/**
 * A private network's pages are for no search engine: robots.txt turns every crawler away (and
 * every answer says `X-Robots-Tag: noindex, nofollow`, app.ts). The server's own text, with or
 * without a build, so that it is never the app's page.
 */
export const robotsTxt = 'User-agent: *\nDisallow: /\n';

/**
 * Registers the static files of `config.webDist` (when it holds a build) and the not-found handler.
 * Files are sent pre-compressed (`.br`, `.gz` written beside them at build by web/vite-precompress.ts)
 * when the browser accepts it, so nothing is compressed per request.
 *
 * @example
 * await registerWebApp(app, { webDist: '/srv/enclave/web/dist' });
 */
export async function registerWebApp(app: FastifyInstance, config: Pick<Config, 'webDist'>): Promise<void> {
  const root = config.webDist;
  const hasWeb = root !== undefined && fs.existsSync(path.join(root, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root,
      wildcard: true,
      preCompressed: true,
      // Our own Cache-Control below; send's default (max-age=0) would say nothing useful.
      cacheControl: false,
      setHeaders: (reply, file) => {
        // `file` may be the .br/.gz sibling; its directory is what matters.
        const inHashedDir = path.relative(root, file).split(path.sep)[0] === hashedDir;
        reply.header('cache-control', inHashedDir ? immutable : revalidate);
      },
    });
  }
  app.setNotFoundHandler(async (req, reply) => {
    const pathname = req.url.split('?')[0];
    if (pathname === '/robots.txt' && (req.method === 'GET' || req.method === 'HEAD')) {
      return reply.type('text/plain; charset=utf-8').send(robotsTxt);
    }
    const servesApp =
      hasWeb &&
      req.method === 'GET' &&
      !req.url.startsWith(API_PREFIX) &&
      !req.url.startsWith(SOCKET_PATH) &&
      // Metrics are never served on the public port (http/metrics.ts): a scraper pointed here
      // by mistake gets a plain 404, not the app's page.
      pathname !== '/metrics' &&
      // A missing hashed file is an old tab asking for a replaced release: index.html would be a lie.
      !req.url.startsWith(`/${hashedDir}/`);
    if (!servesApp) {
      return reply.status(404).send({ error: `No route ${req.method} ${pathname}`, code: errorCodes.notFound });
    }
    // The single-page app routes everything else itself (including its own 404 page).
    return reply.sendFile('index.html');
  });
}
