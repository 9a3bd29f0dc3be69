/** The load bench's table (its figures in docs/scaling.md), Enclave beside the bare ws ceiling. */
import type { LoadResult } from './run';

const ratio = (a: number, b: number, digits = 2) => (b > 0 ? `${(a / b).toFixed(digits)}×` : '–');

export function loadTable(enclave: LoadResult, bare: LoadResult): string {
  const e = enclave;
  const b = bare;
  const rows: [string, string, string, string][] = [
    [
      'sustained channel deliveries/s',
      String(e.saturation.deliveriesPerS),
      String(b.saturation.deliveriesPerS),
      ratio(e.saturation.deliveriesPerS, b.saturation.deliveriesPerS),
    ],
    [
      `p50 send→receive at ${e.latency.rate} msg/s, ms`,
      String(e.latency.p50Ms),
      String(b.latency.p50Ms),
      ratio(e.latency.p50Ms, b.latency.p50Ms),
    ],
    [
      `p99 send→receive at ${e.latency.rate} msg/s, ms`,
      String(e.latency.p99Ms),
      String(b.latency.p99Ms),
      ratio(e.latency.p99Ms, b.latency.p99Ms),
    ],
    [
      `server CPU per delivery at ${e.latency.rate} msg/s, µs`,
      String(e.latency.cpuUsPerDelivery),
      String(b.latency.cpuUsPerDelivery),
      ratio(e.latency.cpuUsPerDelivery, b.latency.cpuUsPerDelivery),
    ],
    [
      'server CPU per delivery in saturation, µs',
      String(e.saturation.cpuUsPerDelivery),
      String(b.saturation.cpuUsPerDelivery),
      ratio(e.saturation.cpuUsPerDelivery, b.saturation.cpuUsPerDelivery),
    ],
    ['server CPU busy in saturation (1 = one core)', String(e.saturation.cpuShare), String(b.saturation.cpuShare), ''],
    [
      'server RSS after saturation, MB',
      String(e.saturation.rssMB),
      String(b.saturation.rssMB),
      ratio(e.saturation.rssMB, b.saturation.rssMB),
    ],
    [`${e.members} sockets authenticated (join), ms`, String(e.joinMs), String(b.joinMs), ratio(e.joinMs, b.joinMs)],
    ['server CPU for the join and its presence frames, s', String(e.joinCpuS), String(b.joinCpuS), ratio(e.joinCpuS, b.joinCpuS)],
    ['presence frames received while joining', String(e.presenceFrames), String(b.presenceFrames), ''],
    ['acknowledged sends/s in saturation', String(e.saturation.sendsPerS), String(b.saturation.sendsPerS), ''],
    ['send acknowledgement p99 in saturation, ms', String(e.saturation.ackP99Ms), String(b.saturation.ackP99Ms), ''],
    [
      'heap per idle authenticated socket, KiB',
      String(e.heapPerSocketKiB),
      String(b.heapPerSocketKiB),
      ratio(e.heapPerSocketKiB, b.heapPerSocketKiB),
    ],
    ['chat frame, bytes', String(e.chatFrameBytes), String(b.chatFrameBytes), ''],
    ['deliveries missing at the fixed rate', String(e.latency.missing), String(b.latency.missing), ''],
    ['sends refused in saturation', String(e.saturation.refused), String(b.saturation.refused), ''],
    ['sockets closed by the server (code: count)', closes(e), closes(b), ''],
    ...persistedRows(e),
  ];
  return [`| figure | ${e.target} | ${b.target} | ratio |`, '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The persisted-sends phase (bench/load/sends.ts): Enclave's figures; the bare server stores nothing. */
function persistedRows(e: LoadResult): [string, string, string, string][] {
  const p = e.persisted;
  if (!p) return [];
  return [
    [`persisted direct sends/s, acknowledged (${p.senders} senders, ${p.offeredPerS}/s offered)`, String(p.sendsPerS), '–', ''],
    ['persisted send acknowledgement p50, ms', String(p.ackP50Ms), '–', ''],
    ['persisted send acknowledgement p99, ms', String(p.ackP99Ms), '–', ''],
    ['server CPU per persisted send, µs', String(p.cpuUsPerSend), '–', ''],
    [
      'CPU busy in the persisted phase, server / PostgreSQL / load client (1 = one core)',
      `${p.serverBusy} / ${p.databaseBusy ?? '–'} / ${p.clientBusy}`,
      '–',
      '',
    ],
    ['persisted sends refused (503 busy, 429)', String(p.refused), '–', ''],
    ['persisted sends unanswered (no connection)', String(p.unanswered), '–', ''],
  ];
}

const closes = (r: LoadResult) =>
  Object.entries(r.closes)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ') || '0';
