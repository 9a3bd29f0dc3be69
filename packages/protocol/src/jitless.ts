/**
 * Imported first by the web app, before any schema is built: zod then never compiles parsers with
 * `new Function`, nor probes whether it may. The page runs under `script-src 'self'` (no eval), and
 * even a probe that fails quietly is a Content-Security-Policy violation the browser reports.
 * The server keeps the compiled parsers.
 */
import { config } from 'zod';

config({ jitless: true });
