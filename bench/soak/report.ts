/** The soak's report as Markdown, in the shape of bench/RESULTS.md's "Soak" section. */
import type { SoakReport } from './run';

const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

export function markdown(r: SoakReport): string {
  const m = r.members;
  const refused = Object.entries(r.messages.refused);
  return [
    `- date: ${r.startedAt}`,
    `- machine: ${r.machine.cpus} cores, ${r.machine.platform}, Node ${r.machine.node}`,
    `- server: ${r.options.entry === 'dist' ? 'server/dist/main.js (the production build)' : 'server/src/main.ts through tsx'}, NODE_ENV=production, LOG_LEVEL=${r.options.logLevel}, RATE_LIMIT_WINDOW_MS=${r.options.rateLimitWindowMs}`,
    `- database: ${r.database}`,
    `- duration: ${r.durationS} s in all, ${r.loadDurationS} s of load: ${r.messagesPerSecond} messages/s`,
    `- messages: ${r.messages.acknowledged} acknowledged, ${r.messages.general} in the general channel, ${r.messages.direct} direct; ${r.options.concurrency} sends in flight`,
    `- refused along the way (sent again as new messages): ${refused.length ? refused.map(([why, n]) => `${why}: ${n}`).join(', ') : 'none'}`,
    `- members: ${m.initial} at the start (${r.options.steadyMembers} of them steady), ${m.joinedDuringLoad} joined during the load, ${m.total} in all; ` +
      `${m.disconnects} closed their socket and came back (${m.reconnects}), ${m.logouts} logged out (${m.leftForGood} for good), ` +
      `${m.bans} banned and ${m.unbans} unbanned by the creator; ${m.logins} logins; ${m.leftAtEnd} logged out at the end`,
    `- decryption sample: ${r.decryption.ok}/${r.decryption.sampled}`,
    '',
    table(
      [
        'point',
        'messages',
        's',
        'heap used MB',
        'heap after GC MB',
        'external MB',
        'RSS MB',
        'connections',
        'WebSockets',
        'lag p50 / p99 / max ms',
      ],
      r.snapshots.map((s) => [
        s.label,
        s.messages,
        s.elapsedS,
        s.heapUsedMB,
        s.heapAfterGcMB,
        s.externalMB,
        s.rssMB,
        s.connections,
        s.websockets,
        `${s.lagMs.p50} / ${s.lagMs.p99} / ${s.lagMs.max}`,
      ]),
    ),
    '',
    `Rows ${r.rowsRead}:`,
    '',
    table(Object.keys(r.rows), [Object.values(r.rows)]),
    '',
    table(
      ['invariant', 'result', ''],
      r.invariants.map((i) => [i.name, i.ok ? 'ok' : '**FAILED**', i.detail]),
    ),
    ...(r.serverErrors.length ? ['', 'Server errors:', '', '```', ...r.serverErrors, '```'] : []),
  ].join('\n');
}
