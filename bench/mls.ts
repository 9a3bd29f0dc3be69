/**
 * `npm run bench:mls`: what MLS (RFC 9420) tree key agreement costs a channel of N members, measured
 * with ts-mls (pure TypeScript over WebCrypto) in MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519, to set
 * against our flat design (one channel secret wrapped per member). Per operation: the committer's
 * wall and CPU time to create the commit, the commit's and the Welcome's sizes, one receiver's time to
 * decode and process it, the GroupInfo with the ratchet tree a joiner fetches, the HPKE ciphertexts in
 * the UpdatePath (the fan-out blank nodes cause) and the share of blank parent nodes above members.
 *
 * Member 0 (the admin, who commits every Add and Remove) creates the group and adds N - 2 members in
 * Add-only commits of MLS_ADD_BATCH, which carry no UpdatePath: every parent node stays blank, as after
 * importing a channel. The last of them (receiver R) joins from its Welcome, the N-th (receiver J)
 * through the measured join. Only the admin, R and J hold full state: another member's commit is made
 * from the current epoch under that member's own leaf and signature key, and R and J take the path
 * keys of their common ancestors with it, as processing it would give them. They process every
 * measured commit for real, so a wrong tree or key fails the run.
 *
 * (a) one join; (b) one removal of a random member; (c) half the members, at random, never come back
 * (never commit); 10 % of N are removed at random by the admin in commits of MLS_REMOVE_BATCH Removes
 * (in a blank tree this leaves the same tree as one at a time); the others come back one at a time in
 * random order, each committing once with an UpdatePath, and a removal is measured once 1 %, 10 % and
 * all of them are back. A point needing more than MLS_RETURNS such commits is skipped: ts-mls
 * 2.0.0-rc.10 rehashes the whole tree several times per commit. (d) 1 % of N join one at a time, an
 * Add commit each: mean and max. Unmeasured commits compute SHA-256 and HMAC with node:crypto rather
 * than WebCrypto (the same bytes, faster); measured ones use ts-mls's own ciphersuite.
 *
 * ts-mls 2.0.0-rc.10 puts no UpdatePath in a commit holding a single Remove (RFC 9420 §12.4 requires
 * one: without it the removed member derives the next epoch), so a measured removal is that commit
 * then at once the admin's empty commit, which carries it; the row adds both up. Simulated members
 * share states, so nothing is zeroed. A size is skipped when the two before it, at the rate their
 * figures grew, project an operation past 5 min or the whole size past 2 h. Environment: MLS_MEMBERS
 * (1000,10000), MLS_ADD_BATCH (1000), MLS_REMOVE_BATCH (100), MLS_RETURNS (1000), MLS_RESULTS (the
 * file the table is appended to, bench/RESULTS.md; empty for none).
 */
import { execFileSync } from 'node:child_process';
import { createHmac, hash, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as mls from 'ts-mls';
import { repoRoot } from './soak/server-process';

const wholeNumbers = (name: string, fallback: string, min: number) => {
  const values = (process.env[name] ?? fallback).split(',').map(Number);
  if (!values.every((n) => Number.isInteger(n) && n >= min)) throw new Error(`${name} is a comma-separated list of whole numbers ≥ ${min}`);
  return values;
};
const sizes = wholeNumbers('MLS_MEMBERS', '1000,10000', 100);
const [addBatch] = wholeNumbers('MLS_ADD_BATCH', '1000', 1) as [number];
const [removeBatch] = wholeNumbers('MLS_REMOVE_BATCH', '100', 2) as [number];
const [maxReturns] = wholeNumbers('MLS_RETURNS', '1000', 0) as [number];
const resultsFile = process.env.MLS_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');

const suite = 'MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519';
const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/ts-mls/package.json'), 'utf8')) as { version: string })
  .version;
const cs = await mls.getCiphersuiteImpl(suite);
const context: mls.MlsContext = { cipherSuite: cs, authService: mls.unsafeTestingAuthenticationService };
const digest = async (data: Uint8Array) => new Uint8Array(hash('sha256', data, 'buffer'));
const mac = async (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac('sha256', key).update(data).digest());
const simulated: mls.MlsContext = { ...context, cipherSuite: { ...cs, hash: { ...cs.hash, digest, mac } } };

// Array-based tree math of RFC 9420 §4.1: leaf i is node 2i, a node's level is its trailing 1 bits.
const level = (x: number) => {
  let k = 0;
  while ((x >> k) & 1) k++;
  return k;
};
const isAncestor = (a: number, x: number) => a !== x && Math.abs(a - x) < 2 ** level(a);
const rootOf = (tree: mls.RatchetTree) => 2 ** Math.floor(Math.log2(tree.length)) - 1;
const children = (x: number) => [x ^ (1 << (level(x) - 1)), x ^ (3 << (level(x) - 1))] as const;
function resolution(tree: mls.RatchetTree, x: number): number {
  const node = tree[x];
  if (node?.nodeType === mls.nodeTypes.parent) return 1 + node.parent.unmergedLeaves.length;
  if (node !== undefined || x % 2 === 0) return node === undefined ? 0 : 1;
  return children(x).reduce((sum, c) => sum + resolution(tree, c), 0);
}
/** HPKE ciphertexts in `leaf`'s UpdatePath over `tree`: the sizes of its copath's resolutions. */
function fanOut(tree: mls.RatchetTree, leaf: number) {
  let count = 0;
  for (let x = 2 * leaf, top = rootOf(tree); x !== top;) {
    const k = level(x);
    const p = (x | (1 << k)) ^ (((x >> (k + 1)) & 1) << (k + 1));
    count += resolution(tree, x < p ? p ^ (3 << k) : p ^ (1 << k));
    x = p;
  }
  return count;
}
/** Share of the parent nodes with a member below them that are blank. */
function blankShare(tree: mls.RatchetTree) {
  let [used, blank] = [0, 0];
  const walk = (x: number): boolean => {
    if (x % 2 === 0) return tree[x] !== undefined;
    const below = children(x).map(walk).includes(true);
    if (below) [used, blank] = [used + 1, blank + (tree[x] === undefined ? 1 : 0)];
    return below;
  };
  walk(rootOf(tree));
  return used === 0 ? 0 : blank / used;
}

type Member = { name: string; publicPackage: mls.KeyPackage; privatePackage: mls.PrivateKeyPackage; leaf: number; leafKey: Uint8Array };
const newMember = async (name: string): Promise<Member> => {
  const credential = { credentialType: mls.defaultCredentialTypes.basic, identity: new TextEncoder().encode(name) };
  const { publicPackage, privatePackage } = await mls.generateKeyPackage({ credential, cipherSuite: cs });
  return { name, publicPackage, privatePackage, leaf: -1, leafKey: privatePackage.hpkePrivateKey };
};
const addOf = (m: Member): mls.Proposal => ({ proposalType: mls.defaultProposalTypes.add, add: { keyPackage: m.publicPackage } });
const removeOf = (leaf: number): mls.Proposal => ({ proposalType: mls.defaultProposalTypes.remove, remove: { removed: leaf } });

function shuffled<T>(items: T[]) {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
const timed = async <T>(fn: () => Promise<T>) => {
  const [cpu, start] = [process.cpuUsage(), performance.now()];
  const value = await fn();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpu: (used.user + used.system) / 1000 };
};
const decoded = (bytes: Uint8Array) => {
  const message = mls.decode(mls.mlsMessageDecoder, bytes);
  if (message === undefined) throw new Error('not an MLS message');
  return message;
};
const framed = (bytes: Uint8Array) => {
  const message = decoded(bytes);
  if (message.wireformat === mls.wireformats.mls_private_message || message.wireformat === mls.wireformats.mls_public_message)
    return message;
  throw new Error('not a framed MLS message');
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

type Figures = Record<'ms' | 'cpu' | 'commit' | 'receiver' | 'fan' | 'blank', number> & { welcome?: number; joiner?: number };
type Row = Figures & { label: string; members: number; tree: number };
type SizeReport = { n: number; rows: Row[]; notes: string[]; totalMs: number; maxOpMs: number };

async function runSize(n: number): Promise<SizeReport> {
  const sizeStart = performance.now();
  let maxOp = 0;
  const [notes, rows] = [[] as string[], [] as Row[]];
  const log = (line: string) => process.stderr.write(`[${n}] ${line}\n`);
  const slowest = <T extends { ms: number }>(t: T) => ((maxOp = Math.max(maxOp, t.ms)), t);

  // The group's current epoch (as its last committer holds it), the members by leaf, and the
  // private paths of the members holding full state.
  let epoch: mls.ClientState;
  const byLeaf = new Map<number, Member>();
  const known = new Map<number, mls.PrivateKeyPath>();
  const receivers: number[] = [];
  const stateOf = (from: mls.ClientState, leaf: number): mls.ClientState => {
    const m = byLeaf.get(leaf)!;
    const privatePath = known.get(leaf) ?? { leafIndex: leaf, privateKeys: { [2 * leaf]: m.leafKey } };
    return { ...from, privatePath, signaturePrivateKey: m.privatePackage.signaturePrivateKey };
  };
  const place = (m: Member) => {
    const key = Buffer.from(m.publicPackage.leafNode.signaturePublicKey);
    m.leaf = epoch.ratchetTree.findIndex((node) => node?.nodeType === mls.nodeTypes.leaf && key.equals(node.leaf.signaturePublicKey)) / 2;
    if (m.leaf < 0) throw new Error(`${m.name} is not in the tree`);
    byLeaf.set(m.leaf, m);
  };
  const joinAs = (m: Member, welcome: Uint8Array) => {
    const message = decoded(welcome);
    if (message.wireformat !== mls.wireformats.mls_welcome) throw new Error('not a Welcome');
    const keys = { keyPackage: m.publicPackage, privateKeys: m.privatePackage };
    return timed(() => mls.joinGroup({ context, welcome: message.welcome, ...keys, ratchetTree: epoch.ratchetTree })).then(slowest);
  };

  /** Moves the group to the commit's epoch; the members in `processed` learn their keys by processing it. */
  const advance = (committer: number, result: mls.CreateCommitResult, processed: number[] = []) => {
    const before = stateOf(epoch, committer).privatePath.privateKeys;
    const after = result.newState.privatePath.privateKeys;
    for (const [leaf, own] of known) {
      if (leaf === committer || processed.includes(leaf)) continue;
      const learned = Object.entries(after).filter(
        ([x, key]) => Number(x) % 2 === 1 && before[Number(x)] !== key && isAncestor(Number(x), 2 * leaf),
      );
      known.set(leaf, { leafIndex: leaf, privateKeys: { ...own.privateKeys, ...Object.fromEntries(learned) } });
    }
    if (known.has(committer)) known.set(committer, result.newState.privatePath);
    else byLeaf.get(committer)!.leafKey = after[2 * committer]!;
    epoch = result.newState;
    for (const leaf of byLeaf.keys()) if (epoch.ratchetTree[2 * leaf] === undefined) byLeaf.delete(leaf);
  };
  /** A commit nobody measures or processes. */
  const commitAs = async (committer: number, proposals: mls.Proposal[]) => {
    const state = stateOf(epoch, committer);
    const { value, ms } = slowest(await timed(() => mls.createCommit({ context: simulated, state, extraProposals: proposals })));
    advance(committer, value);
    return { result: value, ms };
  };
  const treeBytes = async () => {
    const groupInfo = await mls.createGroupInfoWithExternalPubAndRatchetTree(epoch, [], cs);
    const message = { wireformat: mls.wireformats.mls_group_info, version: mls.protocolVersions.mls10, groupInfo };
    return mls.encode(mls.mlsMessageEncoder, message).length;
  };

  /** One commit by the admin, processed by the receivers; `joiner` then joins from its Welcome. */
  const measured = async (proposals: mls.Proposal[], joiner?: Member): Promise<Figures & { joinError?: string }> => {
    const before = epoch;
    const blank = blankShare(before.ratchetTree);
    const made = slowest(await timed(() => mls.createCommit({ context, state: stateOf(before, 0), extraProposals: proposals })));
    const commit = mls.encode(mls.mlsMessageEncoder, made.value.commit);
    const welcome = made.value.welcome && mls.encode(mls.mlsMessageEncoder, made.value.welcome);
    const hasPath = made.value.newState.privatePath.privateKeys[0] !== stateOf(before, 0).privatePath.privateKeys[0];
    advance(0, made.value, receivers);
    let receiver = 0;
    for (const [i, leaf] of receivers.entries()) {
      const got = slowest(await timed(() => mls.processMessage({ context, state: stateOf(before, leaf), message: framed(commit) })));
      const { groupContext, privatePath } = got.value.newState;
      if (groupContext.epoch !== epoch.groupContext.epoch || !Buffer.from(groupContext.treeHash).equals(epoch.groupContext.treeHash))
        throw new Error(`receiver at leaf ${leaf} disagrees with the committer`);
      known.set(leaf, privatePath);
      if (i === 0) receiver = got.ms;
    }
    const figures = { ms: made.ms, cpu: made.cpu, commit: commit.length, welcome: welcome?.length, receiver, blank };
    const fan = hasPath ? fanOut(epoch.ratchetTree, 0) : 0;
    if (!joiner || !welcome) return { ...figures, fan };
    place(joiner);
    try {
      const joined = await joinAs(joiner, welcome);
      known.set(joiner.leaf, joined.value.privatePath);
      return { ...figures, fan, joiner: joined.ms };
    } catch (error) {
      return { ...figures, fan, joinError: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  };

  /** A removal of a random member: the Remove commit and, when it carries no UpdatePath (rc.10), the admin's empty commit that does. */
  const removal = async (label: string) => {
    const candidates = [...byLeaf.keys()].filter((leaf) => leaf !== 0 && !receivers.includes(leaf));
    const members = byLeaf.size;
    const remove = await measured([removeOf(candidates[randomInt(candidates.length)]!)]);
    const both = remove.fan > 0 ? [remove] : [remove, await measured([])];
    const sum = (key: 'ms' | 'cpu' | 'commit' | 'receiver' | 'fan') => both.reduce((s, m) => s + m[key], 0);
    const [ms, cpu, commit, receiver, fan] = (['ms', 'cpu', 'commit', 'receiver', 'fan'] as const).map(sum) as [
      number,
      number,
      number,
      number,
      number,
    ];
    rows.push({ label, members, tree: await treeBytes(), blank: both.at(-1)!.blank, ms, cpu, commit, receiver, fan });
    if (both.length > 1) notes.push(`${label}: the Remove commit alone (no UpdatePath) ${remove.commit} B, ${remove.ms.toFixed(0)} ms`);
    log(`${label}: ${seconds(ms)}, ${commit} B, ${fan} ciphertexts`);
  };

  // Setup: N - 1 members from Add-only commits.
  const keysStart = performance.now();
  const admin = await newMember('member-0');
  byLeaf.set((admin.leaf = 0), admin);
  const groupId = new TextEncoder().encode('general');
  epoch = await mls.createGroup({ context, groupId, keyPackage: admin.publicPackage, privateKeyPackage: admin.privatePackage });
  known.set(0, epoch.privatePath);
  const bulk: Member[] = [];
  for (let i = 1; i <= n - 2; i++) bulk.push(await newMember(`member-${i}`));
  const keysMs = performance.now() - keysStart;
  log(`${n - 1} key packages in ${seconds(keysMs)}`);
  const setupStart = performance.now();
  let lastWelcome: Uint8Array | undefined;
  for (let i = 0; i < bulk.length; i += addBatch) {
    const batch = bulk.slice(i, i + addBatch);
    const { result } = await commitAs(0, batch.map(addOf));
    batch.forEach(place);
    lastWelcome = mls.encode(mls.mlsMessageEncoder, result.welcome!);
    log(`setup: ${i + batch.length}/${bulk.length} added`);
  }
  const setupMs = performance.now() - setupStart;
  const r = bulk.at(-1)!;
  const rJoin = await joinAs(r, lastWelcome!);
  known.set(r.leaf, rJoin.value.privatePath);
  receivers.push(r.leaf);
  notes.push(
    `setup: ${n - 1} key packages in ${seconds(keysMs)}; ${n - 2} members added by member 0 in Add-only commits of up to ${addBatch} in ${seconds(setupMs)}; receiver R (leaf ${r.leaf}) joined from its Welcome in ${seconds(rJoin.ms)}`,
  );

  // (a) one join.
  const j = await newMember(`member-${n - 1}`);
  const members = byLeaf.size + 1;
  const { joinError, ...join } = await measured([addOf(j)], j);
  if (joinError) throw new Error(`the first joiner could not join: ${joinError}`);
  receivers.push(j.leaf);
  rows.push({ label: '(a) join after the bulk setup', members, ...join, tree: await treeBytes() });
  log(`(a) join: ${join.ms.toFixed(0)} ms, joiner ${join.joiner?.toFixed(0)} ms`);

  // (b) one removal in the tree the Adds left.
  await removal('(b) removal after the bulk setup, nobody has committed');

  // (c) half never come back; 10 % of N removed; the others come back one at a time.
  const others = [...byLeaf.keys()].filter((leaf) => leaf !== 0 && !receivers.includes(leaf));
  const gone = new Set(shuffled(others).slice(0, Math.floor(others.length / 2)));
  const victims = shuffled(others).slice(0, Math.round(n / 10));
  const churnStart = performance.now();
  for (let i = 0; i < victims.length; i += removeBatch) {
    const batch = victims.slice(i, i + removeBatch);
    await commitAs(0, batch.map(removeOf));
    // A single Remove gets no UpdatePath from rc.10.
    if (batch.length === 1) await commitAs(0, []);
    log(`churn: ${Math.min(i + removeBatch, victims.length)}/${victims.length} removed`);
  }
  notes.push(
    `churn: ${victims.length} members removed by member 0 in commits of up to ${removeBatch} Removes (each with an UpdatePath) in ${seconds(performance.now() - churnStart)}; ${gone.size} of the ${others.length} other members never come back`,
  );
  const returning = shuffled([...byLeaf.keys()].filter((leaf) => leaf !== 0 && !gone.has(leaf)));
  let [back, commits, returnMs] = [0, 0, 0];
  for (const share of [0.01, 0.1, 1]) {
    const target = Math.ceil(share * returning.length);
    if (target > maxReturns) {
      const each = returnMs / Math.max(1, commits);
      notes.push(
        `(c) with ${share * 100} % back skipped: ${target.toLocaleString('en')} self-update commits, over MLS_RETURNS (${maxReturns}); ~${seconds((target - back) * each)} more at ${each.toFixed(0)} ms each`,
      );
      break;
    }
    for (; back < target; back++) {
      if (!byLeaf.has(returning[back]!)) continue;
      returnMs += (await commitAs(returning[back]!, [])).ms;
      commits++;
      if ((back + 1) % Math.ceil(returning.length / 20) === 0) log(`coming back: ${back + 1}/${returning.length}`);
    }
    await removal(
      `(c) removal after removing 10 %; ${back.toLocaleString('en')} of ${returning.length.toLocaleString('en')} active members back`,
    );
  }
  notes.push(
    `(c) coming back: ${commits} self-update commits (each with an UpdatePath; members removed by the measured removals never commit), ${(returnMs / Math.max(1, commits)).toFixed(0)} ms each to create`,
  );

  // (d) 1 % of N join, one Add commit each; R alone processes them.
  receivers.splice(1);
  const joins: Awaited<ReturnType<typeof measured>>[] = [];
  const joinCount = Math.ceil(n / 100);
  for (let i = 0; i < joinCount; i++) {
    const joiner = await newMember(`joiner-${i}`);
    joins.push(await measured([addOf(joiner)], joiner));
    if ((i + 1) % Math.ceil(joinCount / 5) === 0) log(`(d) joins: ${i + 1}/${joinCount}`);
  }
  const tree = await treeBytes();
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
  for (const [label, pick] of [['mean', mean] as const, ['max', (values: number[]) => Math.max(...values)] as const]) {
    const agg = (key: keyof Figures) => {
      const values = joins.map((m) => m[key]).filter((v) => v !== undefined);
      return values.length === 0 ? undefined : pick(values);
    };
    const figures = { ms: agg('ms')!, cpu: agg('cpu')!, commit: agg('commit')!, receiver: agg('receiver')!, blank: agg('blank')! };
    const row = { label: `(d) ${joinCount} joins one at a time, ${label}`, members: byLeaf.size, tree, fan: 0 };
    rows.push({ ...row, ...figures, welcome: agg('welcome'), joiner: agg('joiner') });
  }
  const errors = new Map<string, number>();
  for (const { joinError } of joins) if (joinError) errors.set(joinError, (errors.get(joinError) ?? 0) + 1);
  for (const [error, count] of errors) notes.push(`(d): ${count} of ${joinCount} joiners could not join from their Welcome: ${error}`);

  return { n, rows, notes, totalMs: performance.now() - sizeStart, maxOpMs: maxOp };
}

const reports: SizeReport[] = [];
const skipped: string[] = [];
for (const n of sizes) {
  // Past two sizes, project the next at the rate their slowest operation and their whole run grew.
  const [a, b] = reports.slice(-2);
  const grow = (x: number, y: number) => y * (n / b!.n) ** Math.max(1, Math.log(y / x) / Math.log(b!.n / a!.n));
  const [op, whole] = a && b && n > b.n ? [grow(a.maxOpMs, b.maxOpMs), grow(a.totalMs, b.totalMs)] : [0, 0];
  if (op > 5 * 60_000 || whole > 2 * 3_600_000) {
    const reason = `${n.toLocaleString('en')} members skipped: at the rate from ${a!.n.toLocaleString('en')} to ${b!.n.toLocaleString('en')}, its slowest operation would take ~${(op / 60_000).toFixed(1)} min and the whole size ~${(whole / 3_600_000).toFixed(1)} h (limits 5 min, 2 h)`;
    process.stderr.write(`${reason}\n`);
    skipped.push(reason);
  } else reports.push(await runSize(n));
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
const bytes = (b: number | undefined) => (b === undefined ? '—' : b < 10_000 ? `${Math.round(b)} B` : `${(b / 1000).toFixed(1)} KB`);
const msText = (ms: number | undefined) => (ms === undefined ? '—' : ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`);
const line = (r: Row) =>
  `| ${r.members.toLocaleString('en')} | ${r.label} | ${msText(r.ms)} / ${msText(r.cpu)} | ${bytes(r.commit)} | ${bytes(r.welcome)} | ` +
  `${msText(r.receiver)} | ${bytes(r.tree)} | ${r.fan.toLocaleString('en')} | ${(r.blank * 100).toFixed(0)} % | ${msText(r.joiner)} |`;
const table = [
  `### MLS tree key agreement with ts-mls ${version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `- machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}; commit ${commit}; ${suite}; \`npm run bench:mls\` (bench/mls.ts says how the group and the churn are simulated)`,
  '- removal rows: the Remove commit and the empty commit with the UpdatePath that ts-mls 2.0.0-rc.10 leaves out of a single-Remove commit, added up; receiver: R decoding and processing the commit(s)',
  '',
  '| members | operation | commit: wall / CPU | commit size | Welcome | receiver processes | GroupInfo + ratchet tree | HPKE ciphertexts | blank parents | joiner joins |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...reports.flatMap((report) => report.rows.map(line)),
  '',
  ...reports.flatMap((report) => [
    `${report.n.toLocaleString('en')} members, ${(report.totalMs / 60_000).toFixed(1)} min in all:`,
    '',
    ...report.notes.map((note) => `- ${note}`),
    '',
  ]),
  ...skipped.map((reason) => `- ${reason}`),
  '',
].join('\n');
process.stdout.write(`${table}\n`);
if (resultsFile) fs.appendFileSync(resultsFile, `\n${table}`);
