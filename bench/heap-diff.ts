/**
 * `npx tsx bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot N`: what N more of something
 * (bench:load's sockets, with BENCH_HEAP_SNAPSHOTS) added to a heap, per one of them, by kind of
 * object: the self size of the objects of each constructor (closures by function name, other
 * nodes by their type) in the second snapshot minus the first, largest first.
 */
import fs from 'node:fs';

type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
};

/** Bytes by kind: `object Foo`, `closure bar`, or the node's type for the rest. */
function bytesByKind(file: string): Map<string, { bytes: number; count: number }> {
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const kinds = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const t = types[s.nodes[i + type]!]!;
    const kind = t === 'object' || t === 'closure' ? `${t} ${s.strings[s.nodes[i + name]!]}` : t;
    const k = kinds.get(kind) ?? { bytes: 0, count: 0 };
    k.bytes += s.nodes[i + size]!;
    k.count += 1;
    kinds.set(kind, k);
  }
  return kinds;
}

const [beforeFile, afterFile, countText] = process.argv.slice(2);
const n = Number(countText);
if (!beforeFile || !afterFile || !Number.isInteger(n) || n <= 0) throw new Error('usage: tsx bench/heap-diff.ts BEFORE AFTER N');
const before = bytesByKind(beforeFile);
const after = bytesByKind(afterFile);
const rows = [...after].map(([kind, a]) => {
  const b = before.get(kind) ?? { bytes: 0, count: 0 };
  return { kind, bytes: (a.bytes - b.bytes) / n, count: (a.count - b.count) / n };
});
rows.sort((x, y) => y.bytes - x.bytes);
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
process.stdout.write(`per one of ${n}: ${(total / 1024).toFixed(2)} KiB in all\n\n| kind | bytes each | objects each |\n|---|---|---|\n`);
for (const r of rows.filter((r) => Math.abs(r.bytes) >= 16).slice(0, 30))
  process.stdout.write(`| ${r.kind.replaceAll('|', '\\|')} | ${r.bytes.toFixed(0)} | ${r.count.toFixed(2)} |\n`);
