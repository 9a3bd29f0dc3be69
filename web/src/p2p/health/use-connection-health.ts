import { useEffect, useState } from 'react';
import { isApiError, NETWORK_FAILURE_STATUS } from '../../net/api-error';
import { health } from '../../net/http';
import {
  combineHealth,
  HEALTH_CHECK_INTERVAL_MS,
  HEALTH_CHECK_TIMEOUT_MS,
  LOSS_WINDOW_SAMPLES,
  pushOutcome,
  readLinkSample,
  statusForLatency,
  type ConnectionHealth,
  type HealthStatus,
  type LinkSample,
} from './connection-health';

type Checks = { status: HealthStatus | null; latencyMs: number | null; failure: string | null; lastSeen: number | null; window: boolean[] };

const noChecks: Checks = { status: null, latencyMs: null, failure: null, lastSeen: null, window: [] };

function failureReason(error: unknown, timedOut: boolean): string {
  if (timedOut) return `no answer within ${HEALTH_CHECK_TIMEOUT_MS / 1000} s`;
  if (isApiError(error, NETWORK_FAILURE_STATUS)) return 'network error';
  if (isApiError(error)) return `HTTP ${error.status}`;
  return 'check failed';
}

/** Checks the server every 5 s; samples `link`'s counters as often while there is one. */
export function useConnectionHealth(link: RTCPeerConnection | null): ConnectionHealth {
  const [checks, setChecks] = useState<Checks>(noChecks);
  // Samples carry the link they were taken on, so a new link starts from none without a reset.
  const [samples, setSamples] = useState<{ link: RTCPeerConnection; list: LinkSample[] } | null>(null);

  useEffect(() => {
    let stopped = false;
    let next: ReturnType<typeof setTimeout> | undefined;
    let inFlight: AbortController | null = null;
    const check = async () => {
      const controller = new AbortController();
      inFlight = controller;
      let timedOut = false;
      const timeout = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, HEALTH_CHECK_TIMEOUT_MS);
      const started = performance.now();
      try {
        await health(controller.signal);
        const latencyMs = performance.now() - started;
        if (!stopped) {
          setChecks((c) => ({
            status: statusForLatency(latencyMs),
            latencyMs,
            failure: null,
            lastSeen: Date.now(),
            window: pushOutcome(c.window, true),
          }));
        }
      } catch (error) {
        if (!stopped && isApiError(error, 503)) {
          // Degraded: the server answers but refuses some work for now (its overload limit).
          const latencyMs = performance.now() - started;
          setChecks((c) => ({
            status: 'unstable',
            latencyMs,
            failure: 'server busy (degraded)',
            lastSeen: Date.now(),
            window: pushOutcome(c.window, true),
          }));
        } else if (!stopped) {
          const failure = failureReason(error, timedOut);
          setChecks((c) => ({ ...c, status: 'disconnected', latencyMs: null, failure, window: pushOutcome(c.window, false) }));
        }
      } finally {
        clearTimeout(timeout);
        inFlight = null;
      }
      // The next check is due an interval after this one started, whatever it took.
      if (!stopped) next = setTimeout(() => void check(), Math.max(0, HEALTH_CHECK_INTERVAL_MS - (performance.now() - started)));
    };
    void check();
    return () => {
      stopped = true;
      clearTimeout(next);
      inFlight?.abort();
    };
  }, []);

  useEffect(() => {
    if (!link) return;
    let stopped = false;
    const sample = async () => {
      try {
        const report = await link.getStats();
        if (stopped) return;
        const taken = readLinkSample(report.values(), performance.now());
        setSamples((s) => ({ link, list: [...(s?.link === link ? s.list : []), taken].slice(-(LOSS_WINDOW_SAMPLES + 1)) }));
      } catch {
        // A closed connection has no stats: the room view replaces or clears `link` next.
      }
    };
    void sample();
    const timer = setInterval(() => void sample(), HEALTH_CHECK_INTERVAL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [link]);

  return combineHealth({
    status: checks.status,
    latencyMs: checks.latencyMs,
    failure: checks.failure,
    lastSeen: checks.lastSeen,
    checks: checks.window,
    linkSamples: link ? (samples?.link === link ? samples.list : []) : null,
  });
}
