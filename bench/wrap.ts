/**
 * `npm run bench:wrap`: what one rotation of today's sender keys costs a sender in Node, for a
 * channel of N members (docs/scaling.md §6): `createEpoch` of @enclave/crypto (one RSA-OAEP-2048
 * wrap and one ECDSA P-256 signature per member), its time and CPU, and the size of the upload it
 * makes (`POST /api/epochs`'s body). The recipients' ids are all different; their public keys are
 * WRAP_KEYS distinct RSA-2048 keys used in turn (making 100,000 would take hours, and a wrap costs
 * the same whichever key it uses: each recipient's key is imported anew, as createEpoch does for a
 * real member list). Environment: WRAP_MEMBERS (1000,10000,100000), WRAP_KEYS (16), WRAP_RESULTS
 * (the file the table is appended to, bench/RESULTS.md; empty for none).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEpoch, toBase64 } from '@enclave/crypto';
import { repoRoot } from './soak/server-process';

const sizes = (process.env.WRAP_MEMBERS ?? '1000,10000,100000').split(',').map(Number);
const keyCount = Number(process.env.WRAP_KEYS ?? '16');
if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(keyCount) || keyCount <= 0)
  throw new Error('WRAP_MEMBERS is a comma-separated list of positive whole numbers, WRAP_KEYS a positive whole number');
const resultsFile = process.env.WRAP_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');

const rsa = { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
const publicKeys = await Promise.all(
  Array.from({ length: keyCount }, async () => {
    const pair = await crypto.subtle.generateKey(rsa, true, ['encrypt', 'decrypt']);
    return toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey)));
  }),
);
const { privateKey: signKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);

type Row = { members: number; ms: number; cpuMs: number; uploadBytes: number };
const rows: Row[] = [];
for (const members of sizes) {
  const recipients = Array.from({ length: members }, (_, i) => ({
    id: crypto.randomUUID(),
    encryptionPublicKey: publicKeys[i % keyCount]!,
  }));
  const cpu = process.cpuUsage();
  const start = performance.now();
  const { epoch, shares } = await createEpoch({
    conversationId: 'general',
    senderId: crypto.randomUUID(),
    membershipVersion: 1,
    recipients,
    signKey,
  });
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const body = JSON.stringify({ epochId: epoch.epochId, receiverId: 'all', membershipVersion: 1, shares });
  rows.push({ members, ms, cpuMs: (used.user + used.system) / 1000, uploadBytes: Buffer.byteLength(body) });
  process.stderr.write(`${members} members: ${Math.round(ms)} ms\n`);
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const table = [
  `### Epoch wrap in Node, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — today's sender keys (RSA-OAEP-2048 + ECDSA P-256 per member)`,
  '',
  `- machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}; commit ${commit}; \`createEpoch\` of @enclave/crypto, ${keyCount} distinct recipient keys in turn`,
  '',
  '| members | wrap time | CPU | per member | upload (`POST /api/epochs` body) | per member |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.members.toLocaleString('en')} | ${Math.round(r.ms)} ms | ${Math.round(r.cpuMs)} ms | ${((r.ms * 1000) / r.members).toFixed(0)} µs | ${mb(r.uploadBytes)} | ${(r.uploadBytes / r.members).toFixed(0)} bytes |`,
  ),
  '',
].join('\n');
process.stdout.write(`${table}\n`);
if (resultsFile) fs.appendFileSync(resultsFile, `\n${table}`);
