/**
 * Requests as the server itself timed them: Fastify's "incoming request" and "request completed"
 * lines of its log (the bench runs it at LOG_LEVEL=info), paired by request id. Its
 * `responseTime` leaves out whatever held up the bench's own event loop, which every real
 * member's client shares, so that a slow answer here is the server's or the database's.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

/** One request the server answered; `start` and `end` in this process's `performance.now()`. */
export type Served = { method: string; path: string; from: string; status: number; start: number; end: number; ms: number };

type Line = {
  msg?: string;
  reqId?: string;
  time?: number;
  responseTime?: number;
  req?: { method?: string; url?: string; remoteAddress?: string };
  res?: { statusCode?: number };
};

/** Every request completed so far, from the server's log file. */
export function servedRequests(logFile: string): Served[] {
  const incoming = new Map<string, { method: string; url: string; from: string }>();
  const served: Served[] = [];
  for (const text of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!text.startsWith('{')) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      continue;
    }
    if (!line.reqId) continue;
    if (line.msg === 'incoming request' && line.req) {
      incoming.set(line.reqId, { method: line.req.method ?? '', url: line.req.url ?? '', from: line.req.remoteAddress ?? '' });
    } else if (line.msg === 'request completed' && line.time !== undefined && line.responseTime !== undefined) {
      const req = incoming.get(line.reqId);
      if (!req) continue;
      incoming.delete(line.reqId);
      const end = line.time - performance.timeOrigin;
      served.push({
        method: req.method,
        path: req.url.split('?')[0] ?? req.url,
        from: req.from,
        status: line.res?.statusCode ?? 0,
        start: end - line.responseTime,
        end,
        ms: line.responseTime,
      });
    }
  }
  return served;
}
