/**
 * Server memory under attachment uploads at once: the server as a process of its own (sources
 * through tsx, embedded database in a fresh directory), 6 members, then 60 uploads of 10 MiB sent
 * together (10 per member, within the upload rate), the server's RSS read from /proc every 20 ms.
 * Prints RSS before, its peak during, and after (each settled after a full GC); how many uploads
 * were stored.
 *
 *   npx tsx bench/upload-memory.ts [path/to/server/src/main.ts]
 *
 * The argument runs another tree's server (an older commit, to compare with).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { routes } from '@enclave/protocol';
import { uploadBytes } from '../server/src/testing/attachments';
import { TestMember } from '../server/src/testing/member';
import { ServerProcess, repoRoot } from './soak/server-process';

const UPLOADS = 60;
const MEMBERS = 6;
const BYTES = 10 * 1024 * 1024;
const MASTER_KEY = 'cd'.repeat(64);
const MB = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const script = path.resolve(process.argv[2] ?? path.join(repoRoot, 'server/src/main.ts'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-upload-memory-'));
  const server = await ServerProcess.start(
    { script },
    { DATA_DIR: dataDir, MASTER_KEY, LOG_LEVEL: 'warn', ATTACHMENT_QUOTA_MB: '1000' },
    path.join(dataDir, 'server.log'),
  );
  try {
    const creator = new TestMember.Anonymous(server.url);
    const { keys } = await creator.call(
      routes.generateKeys,
      { body: { quantity: MEMBERS } },
      { authorization: `SuperAdmin ${MASTER_KEY}` },
    );
    const members: TestMember[] = [];
    for (const [i, k] of keys.entries()) members.push(await TestMember.join(server.url, k.key, `uploader${i + 1}`));
    const body = randomBytes(BYTES);

    // Settled: a full GC (bench/server-probe.mjs) and the allocator's pages given back.
    await server.probe(true);
    await sleep(2_000);
    const before = server.rssBytes();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, server.rssBytes())), 20);
    const replies = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) => {
        const member = members[i % MEMBERS]!;
        return uploadBytes(member, members[(i + 1) % MEMBERS]!.id, body);
      }),
    );
    clearInterval(sampler);
    await server.probe(true);
    await sleep(2_000);
    const after = server.rssBytes();
    const stored = replies.filter((r) => r.status === 201).length;
    const statuses = [...new Set(replies.map((r) => r.status))].join(', ');
    console.log(`server: ${path.relative(repoRoot, script) || script}`);
    console.log(`${UPLOADS} uploads of ${MB(BYTES)} at once: ${stored} stored (answers: ${statuses})`);
    console.log(`RSS before ${MB(before)}, peak during ${MB(peak)} (+${MB(peak - before)}), after ${MB(after)}`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
