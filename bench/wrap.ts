/**
 * `npm run bench:wrap`: what wrapping a channel's key for N members costs (docs/scaling.md §6),
 * today's sender keys against the channel key:
 * - today: `createEpoch` of @enclave/crypto, one RSA-OAEP-2048 wrap and one ECDSA P-256 signature
 *   per member, which every active sender pays at every membership change;
 * - channel key: `startWrap` and `wrapShares`, per member their listed signing key imported and
 *   their signature over their share key verified, then one X25519 agreement, HKDF and 40-byte
 *   AES-KW wrap, and one signature per upload, which one member pays at a removal (a join costs
 *   one share, for the newcomer);
 * - the trust checks a wrapper makes first (KeyTrust.checkShareRecipients): every member listed,
 *   fingerprinted and pinned on first sight, in pages of 5,000; every member's keys differ;
 * - the member list's pin check when a later session opens the chat (KeyTrust.check of every
 *   member at once, each pinned by an earlier session).
 * Each is timed in Node on one thread (pins in memory) and in Debian's Chromium: today's and the
 * trust checks on the page's thread, as the web app runs them (the pins in its IndexedDB store);
 * the channel key across `navigator.hardwareConcurrency` Web Workers; with the page's longest task
 * meanwhile (bench/wrap/). The upload is the JSON body each would post. The
 * recipients' ids are all different; their public keys are WRAP_KEYS distinct keys used in turn
 * (making 100,000 RSA keys would take hours, and a wrap costs the same whichever key it uses: each
 * recipient's key is imported anew, as for a real member list). Environment: WRAP_MEMBERS
 * (1000,10000,100000), WRAP_KINDS (today,channel,trust,list), WRAP_KEYS (16), WRAP_CHROMIUM (1; 0 for Node only), WRAP_RESULTS (the file
 * the table is appended to, bench/RESULTS.md; empty for none).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryPinStore } from '@enclave/client';
import { createEpoch, newChannelSecret, startWrap, wrapShares } from '@enclave/crypto';
import { repoRoot } from './soak/server-process';
import { wrapInChromium } from './wrap/chromium';
import type { WrapKind } from './wrap/page';
import {
  checkRecipients,
  listCheckOfNextSession,
  memberList,
  rsaPublicKeys,
  signedRecipients,
  signedShareKeys,
  trustOver,
} from './wrap/keys';

const sizes = (process.env.WRAP_MEMBERS ?? '1000,10000,100000').split(',').map(Number);
const keyCount = Number(process.env.WRAP_KEYS ?? '16');
if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(keyCount) || keyCount <= 0)
  throw new Error('WRAP_MEMBERS is a comma-separated list of positive whole numbers, WRAP_KEYS a positive whole number');
const withChromium = (process.env.WRAP_CHROMIUM ?? '1') !== '0';
const resultsFile = process.env.WRAP_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A wrap by today's sender keys or by the channel key, the trust checks before the latter, or the member list's pin check. */
type Kind = WrapKind;
const allKinds: readonly Kind[] = ['today', 'channel', 'trust', 'list'];
const kinds = (process.env.WRAP_KINDS ?? allKinds.join(',')).split(',') as Kind[];
if (!kinds.every((k) => allKinds.includes(k))) throw new Error(`WRAP_KINDS is a comma-separated list of ${allKinds.join(', ')}`);
type Row = { kind: Kind; where: string; members: number; ms: number; uploadBytes: number; longestTaskMs?: number };

const [rsaKeys, signedKeys] = await Promise.all([rsaPublicKeys(keyCount), signedShareKeys(keyCount)]);
const { privateKey: signKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);

/** One wrap in Node: its wall time and the size of the body it would post. */
async function inNode(kind: Kind, members: number): Promise<Row> {
  const list = kind === 'trust' || kind === 'list' ? memberList(members, rsaKeys, signedKeys) : null;
  const listCheck = kind === 'list' && list ? await listCheckOfNextSession(list, new MemoryPinStore()) : null;
  const recipients = kind === 'channel' ? signedRecipients(members, signedKeys) : [];
  const start = performance.now();
  let body: unknown;
  if (kind === 'today') {
    const recipients = Array.from({ length: members }, (_, i) => ({
      id: crypto.randomUUID(),
      encryptionPublicKey: rsaKeys[i % keyCount]!,
    }));
    const { epoch, shares } = await createEpoch({
      conversationId: 'general',
      senderId: crypto.randomUUID(),
      membershipVersion: 1,
      recipients,
      signKey,
    });
    body = { epochId: epoch.epochId, receiverId: 'all', membershipVersion: 1, shares };
  } else if (listCheck) {
    await listCheck();
  } else if (list) {
    await checkRecipients(trustOver(list, new MemoryPinStore(), crypto.randomUUID()), list);
  } else {
    const secret = await newChannelSecret('general', crypto.randomUUID());
    const { header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: crypto.randomUUID(), signKey });
    body = { header, shares: await wrapShares({ header, secret, ephemeralPrivateKey, recipients }) };
  }
  const ms = performance.now() - start;
  log(`Node, ${kind}, ${members} members: ${Math.round(ms)} ms`);
  return { kind, where: 'Node, one thread', members, ms, uploadBytes: body === undefined ? 0 : Buffer.byteLength(JSON.stringify(body)) };
}

const rows: Row[] = [];
for (const members of sizes) for (const kind of kinds) rows.push(await inNode(kind, members));
if (withChromium) {
  const runs = sizes.flatMap((members) => kinds.map((kind) => ({ kind, members })));
  for (const r of await wrapInChromium(runs, keyCount, log)) {
    const where =
      r.kind === 'channel'
        ? `Chromium, ${r.workers} workers`
        : r.kind === 'trust' || r.kind === 'list'
          ? 'Chromium, page thread, IndexedDB pins'
          : 'Chromium, page thread';
    rows.push({ kind: r.kind, where, members: r.members, ms: r.ms, uploadBytes: r.uploadBytes, longestTaskMs: r.longestTaskMs });
  }
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
const chromiumVersion = withChromium
  ? execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  : 'not run';
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const label = {
  today: "today's sender keys (RSA-OAEP + ECDSA a member)",
  channel: 'channel key (share-key signature checked, then X25519 + AES-KW a member)',
  trust: 'channel key: the trust checks first (listed, fingerprinted, pinned on first sight)',
  list: "the member list's pin check when a later session opens the chat (every member pinned before)",
};
const order = (r: Row) => [r.members, kinds.indexOf(r.kind), r.where.startsWith('Node') ? 0 : 1];
rows.sort((a, b) => {
  const [x, y] = [order(a), order(b)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
});
const table = [
  `### Channel key wrap, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: today's sender keys against the channel key`,
  '',
  `- machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}, ${chromiumVersion}; commit ${commit}; ${keyCount} distinct recipient keys in turn`,
  '',
  '| members | design | where | wrap time | per member | upload | per member | longest page task |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.members.toLocaleString('en')} | ${label[r.kind]} | ${r.where} | ${Math.round(r.ms).toLocaleString('en')} ms | ${((r.ms * 1000) / r.members).toFixed(0)} µs | ${r.uploadBytes ? mb(r.uploadBytes) : '—'} | ${r.uploadBytes ? `${(r.uploadBytes / r.members).toFixed(0)} bytes` : '—'} | ${r.longestTaskMs === undefined ? '' : r.longestTaskMs === 0 ? 'none over 50 ms' : `${Math.round(r.longestTaskMs)} ms`} |`,
  ),
  '',
].join('\n');
process.stdout.write(`${table}\n`);
if (resultsFile) fs.appendFileSync(resultsFile, `\n${table}`);
