import { routes } from '@enclave/protocol';
import { plural } from '../../lib/format';
import { call } from '../../net/http';
import type { Realtime } from '../../realtime/realtime-context';
import { formatMs } from './connection-health';
import {
  kbitPerSecond,
  LOOPBACK_OPEN_TIMEOUT_MS,
  median,
  TEST_NAMES,
  verdict,
  WARN_LOOPBACK_OPEN_MS,
  WARN_RTT_MS,
  WARN_THROUGHPUT_KBPS,
  type Step,
} from './p2p-tests';
import { echoTimes, measureThroughput, offerTime, openLoopback, pingSocket, STOPPED, type Loopback } from './probes';

/**
 * One run of the suite: its steps share the ICE servers the signaling step fetched and the
 * loop-back the third step opened. `close` ends the loop-back (after the run, or on leaving the page).
 */
export function createSuite(realtime: Pick<Realtime, 'socket' | 'frames'> | null): { steps: Step[]; close: () => void } {
  let iceServers: RTCIceServer[] = [];
  let loopback: Loopback | null = null;
  let closed = false;
  const openChannel = () => {
    if (!loopback || closed) throw new Error('The loop-back channel is closed.');
    return loopback.channel;
  };

  const steps: Step[] = [
    {
      id: 'signaling',
      name: TEST_NAMES.signaling,
      needs: [],
      run: async (signal) => {
        const rtt = await pingSocket(realtime, signal);
        const figure = { value: rtt, unit: 'ms' } as const;
        const slow = verdict(rtt, { warnAbove: WARN_RTT_MS }) === 'warning' ? ` The answer took over ${WARN_RTT_MS} ms.` : '';
        try {
          iceServers = (await call(routes.p2pConfig, {})).iceServers;
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          return {
            status: 'warning',
            figure,
            detail: `The server answered the ping, but its STUN/TURN list could not be fetched (${why}); the loop-back uses this device's own addresses.${slow}`,
          };
        }
        const servers =
          iceServers.length === 0
            ? 'no STUN/TURN servers are configured, so rooms connect only where members reach each other directly'
            : `${plural(iceServers.length, 'STUN/TURN server')} configured`;
        return {
          status: slow ? 'warning' : 'passed',
          figure,
          detail: `The server answered a ping over the real-time connection; ${servers}.${slow}`,
        };
      },
    },
    {
      id: 'webrtc',
      name: TEST_NAMES.webrtc,
      needs: [],
      run: async () => ({
        status: 'passed',
        figure: { value: await offerTime(), unit: 'ms' },
        detail: 'The offer with a data channel was created in the time shown.',
      }),
    },
    {
      id: 'loopback',
      name: TEST_NAMES.loopback,
      needs: ['webrtc'],
      run: async (signal) => {
        const started = performance.now();
        const opened = await openLoopback(iceServers, LOOPBACK_OPEN_TIMEOUT_MS, signal);
        const ms = performance.now() - started;
        if (closed) {
          opened.close();
          throw new Error(STOPPED);
        }
        loopback = opened;
        const over = opened.candidateType ? ` over ${opened.candidateType} candidates` : '';
        const slow = verdict(ms, { warnAbove: WARN_LOOPBACK_OPEN_MS });
        return {
          status: slow,
          figure: { value: ms, unit: 'ms' },
          detail: `The channel opened${over}; no server carried it.${slow === 'warning' ? ` Opening took over ${WARN_LOOPBACK_OPEN_MS / 1000} s: the device is busy.` : ''}`,
        };
      },
    },
    {
      id: 'rtt',
      name: TEST_NAMES.rtt,
      needs: ['loopback'],
      run: async (signal) => {
        const times = await echoTimes(openChannel(), signal);
        const rtt = median(times);
        const status = verdict(rtt, { warnAbove: WARN_RTT_MS });
        const spread = `Fastest ${formatMs(Math.min(...times))}, slowest ${formatMs(Math.max(...times))}.`;
        return {
          status,
          figure: { value: rtt, unit: 'ms' },
          detail: `${spread}${status === 'warning' ? ` Over ${WARN_RTT_MS} ms: the device is busy.` : ''}`,
        };
      },
    },
    {
      id: 'throughput',
      name: TEST_NAMES.throughput,
      needs: ['loopback'],
      run: async (signal) => {
        const { bytes, ms } = await measureThroughput(openChannel(), signal);
        const kbps = kbitPerSecond(bytes, ms);
        const status = verdict(kbps, { warnBelow: WARN_THROUGHPUT_KBPS });
        return {
          status,
          figure: { value: kbps, unit: 'kbit/s' },
          detail: `${bytes / 1024 / 1024} MiB in ${Math.round(ms)} ms, confirmed by the far end.${status === 'warning' ? ` Under ${WARN_THROUGHPUT_KBPS} kbit/s: the device is busy.` : ''}`,
        };
      },
    },
  ];

  return {
    steps,
    close: () => {
      closed = true;
      loopback?.close();
      loopback = null;
    },
  };
}
