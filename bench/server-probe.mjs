/**
 * Preloaded into the server under soak, and only there (`node --expose-gc --import
 * bench/server-probe.mjs server/dist/main.js`, started by bench/soak/server-process.ts). Over the
 * IPC channel the bench opened, it answers each `soak:sample` request with the process's heap
 * figures (after a full garbage collection when asked, and a heap snapshot to a file when asked)
 * and the event-loop delay since the previous answer. The server itself gains no route, no flag and no file: without an IPC channel this does
 * nothing. RSS and open sockets are read from /proc by the bench, outside the process.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

const MS = 1e6;
const RESOLUTION_MS = 10;

if (process.send) {
  // A 10 ms sampling timer: the only thing this adds to the server's event loop.
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  process.on('message', async (message) => {
    if (message?.type !== 'soak:sample') return;
    const lagMs = { mean: delay.mean / MS, p50: delay.percentile(50) / MS, p99: delay.percentile(99) / MS, max: delay.max / MS };
    let gcError = null;
    if (message.gc && typeof globalThis.gc !== 'function') gcError = 'the server was started without --expose-gc';
    else if (message.gc) {
      // Twice, a turn apart: the first collection queues finalizers and weak callbacks, the
      // second frees what they let go.
      globalThis.gc();
      await nextTurn();
      globalThis.gc();
    }
    const memory = process.memoryUsage();
    // A heap snapshot when asked (bench:load's BENCH_HEAP_SNAPSHOTS), after the figures are read.
    if (typeof message.snapshot === 'string') writeHeapSnapshot(message.snapshot);
    if (message.gc) {
      // The pause we caused is not the server's lag: let the sampler record it, then drop it.
      await sleep(3 * RESOLUTION_MS);
    }
    delay.reset();
    process.send({
      type: 'soak:sample',
      id: message.id,
      gcError,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      lagMs,
    });
  });
  // The channel must neither keep the server alive nor hold up its exit on SIGTERM.
  process.channel?.unref();
}
