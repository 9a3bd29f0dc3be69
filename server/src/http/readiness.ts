/**
 * Readiness (GET /api/ready, docs/operations.md): whether a load balancer or orchestrator should
 * send this instance work. Not ready while it cannot reach its database or Redis (when
 * configured), while it drains, or while it refuses work for want of capacity. The health check
 * (/api/health) stays the liveness check: it says nothing of the dependencies, so that an outage
 * of PostgreSQL or Redis never gets every instance restarted at once.
 *
 * Each dependency is asked (a `select 1`, a PING) at most once per `cacheMs`, however often the
 * check is polled, and a dependency that has not answered within `timeoutMs` is unreachable; a
 * probe still waiting is never doubled, so a dependency that hangs holds one connection attempt.
 */
import type { NotReadyReason } from '@enclave/protocol';
import type { WorkGate } from './overload';

/** The answer of the last probes is reused for this long. */
export const READY_CACHE_MS = 1_000;
/** A dependency that has not answered a probe within this is unreachable. */
export const READY_TIMEOUT_MS = 1_000;

export type Probe = () => Promise<unknown>;
type Dependency = 'database' | 'redis';

export class Readiness {
  /** Set when the instance starts draining (app.ts close()). */
  draining = false;
  private checked: { at: number; down: Dependency[] } | null = null;
  private checking: Promise<Dependency[]> | null = null;
  /** Probes that have not answered yet (timed out, perhaps): not started again until they do. */
  private readonly waiting = new Set<Dependency>();

  constructor(
    private readonly probes: Partial<Record<Dependency, Probe>>,
    private readonly gate: WorkGate,
    private readonly opts = { cacheMs: READY_CACHE_MS, timeoutMs: READY_TIMEOUT_MS },
  ) {}

  /** Why this instance is not ready; empty when it is. */
  async reasons(): Promise<NotReadyReason[]> {
    const reasons: NotReadyReason[] = [...(await this.unreachable())];
    if (this.draining) reasons.push('draining');
    if (this.gate.degraded()) reasons.push('degraded');
    return reasons;
  }

  private unreachable(): Promise<Dependency[]> {
    if (this.checked && Date.now() - this.checked.at < this.opts.cacheMs) return Promise.resolve(this.checked.down);
    this.checking ??= this.probeAll().then((down) => {
      this.checked = { at: Date.now(), down };
      this.checking = null;
      return down;
    });
    return this.checking;
  }

  private async probeAll(): Promise<Dependency[]> {
    const names = Object.keys(this.probes) as Dependency[];
    const answers = await Promise.all(names.map((name) => this.probe(name)));
    return names.filter((_, i) => !answers[i]);
  }

  /** Whether `name` answered in time. */
  private probe(name: Dependency): Promise<boolean> {
    if (this.waiting.has(name)) return Promise.resolve(false);
    this.waiting.add(name);
    const answered = this.probes[name]!().then(
      () => true,
      () => false,
    );
    void answered.finally(() => this.waiting.delete(name));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.opts.timeoutMs);
    });
    return Promise.race([answered, timedOut]).finally(() => clearTimeout(timer));
  }
}
