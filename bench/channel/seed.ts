/**
 * The channel bench's simulated members: rows written straight into `users` in batches, before the
 * first real member registers, with everything the server and the clients check of a member. Their
 * RSA and ECDSA public keys come from a pool (as bench/load/members.ts pools them: RSA generation
 * would take hours for 100,000); each has an X25519 share key of its own, signed by the pooled
 * ECDSA key it is listed with, over exactly what deriveShareIdentity signs, so that the clients'
 * KeyTrust.checkShareRecipients verifies every one. Each was last active at some time in the past
 * 30 days. They never sign in: no token, no key bundle.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { verifyShareKey } from '@enclave/crypto';
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import type pg from 'pg';
import { keyPair, type PoolEntry } from '../load/members';
import { shareKeyBytes } from '../wrap/keys';

const KEY_POOL = 16;
/** Rows per INSERT: 7 array parameters whatever the size, about 4 MB of keys. */
const BATCH = 5000;
/** X25519 SPKI (RFC 8410) is this 12-byte prefix, then the raw 32-byte public key. */
const X25519_SPKI_PREFIX = 12;
/** What stands in the bundle's column: never read, since these members never sign in. */
const NO_BUNDLE = 'bench: a simulated member, who never signs in';

export type Seeding = {
  count: number;
  /** Making the RSA/ECDSA pool. */
  poolMs: number;
  /** Making and signing the share keys (node:crypto, while the previous batch is written). */
  shareKeysMs: number;
  /** From the first batch to the last written, the share keys' time included. */
  writeMs: number;
  /** The first simulated member's id: the one the removal bans. */
  firstId: string;
};

function shareKey(signingKey: KeyObject): { sharePublicKey: string; signature: string } {
  const { publicKey } = generateKeyPairSync('x25519');
  const sharePublicKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX).toString('base64');
  // IEEE P1363, as WebCrypto signs and verifies ECDSA.
  const signature = sign('sha256', shareKeyBytes(sharePublicKey), { key: signingKey, dsaEncoding: 'ieee-p1363' }).toString('base64');
  return { sharePublicKey, signature };
}

/** The rows of members [from, to), as the INSERT's column arrays. */
function batch(from: number, to: number, run: string, pool: PoolEntry[], signing: KeyObject[]): string[][] {
  const columns: string[][] = Array.from({ length: 7 }, () => []);
  for (let i = from; i < to; i++) {
    const entry = i % pool.length;
    const { sharePublicKey, signature } = shareKey(signing[entry]!);
    const row = [
      `sim${run}m${i}`,
      randomBytes(32).toString('hex'),
      pool[entry]!.publicIdentity.encryptionPublicKey,
      pool[entry]!.publicIdentity.signingPublicKey,
      sharePublicKey,
      signature,
      NO_BUNDLE,
    ];
    row.forEach((value, c) => columns[c]!.push(value));
  }
  return columns;
}

/** Checks one share key with the clients' own verification before writing 100,000 like it. */
async function checkOne(entry: PoolEntry, signing: KeyObject): Promise<void> {
  const verifyKey = await crypto.subtle.importKey(
    'spki',
    Buffer.from(entry.publicIdentity.signingPublicKey, 'base64'),
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  if (!(await verifyShareKey({ ...shareKey(signing), verifyKey }))) throw new Error("a simulated member's share key does not verify");
}

/**
 * Writes `count` simulated members into the fresh database and moves the general channel's
 * membership version once, as one change of its members (a registration moves it once each).
 */
export async function seedMembers(db: pg.Pool, count: number, run: string, progress: (line: string) => void): Promise<Seeding> {
  const started = performance.now();
  const pool: PoolEntry[] = [];
  for (let i = 0; i < Math.min(KEY_POOL, count); i++) pool.push(await keyPair());
  const signing = pool.map((e) => createPrivateKey({ key: Buffer.from(e.pkcs8.signing), format: 'der', type: 'pkcs8' }));
  await checkOne(pool[0]!, signing[0]!);
  const poolMs = performance.now() - started;

  const writeStart = performance.now();
  let shareKeysMs = 0;
  let writing: Promise<unknown> = Promise.resolve();
  for (let from = 0; from < count; from += BATCH) {
    const to = Math.min(count, from + BATCH);
    const keysStart = performance.now();
    const columns = batch(from, to, run, pool, signing);
    shareKeysMs += performance.now() - keysStart;
    await writing;
    // Written while the next batch's keys are made.
    writing = db.query(
      `INSERT INTO users (username, login_key_hash, encryption_public_key, signing_public_key, share_public_key, share_key_signature, encrypted_private_key, last_activity)
       SELECT m.*, now() - random() * interval '30 days'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS m`,
      columns,
    );
    if (to % 20_000 === 0 || to === count) progress(`${to} simulated members made`);
  }
  await writing;
  await db.query(
    `INSERT INTO conversations (id, membership_version) VALUES ($1, 1)
     ON CONFLICT (id) DO UPDATE SET membership_version = conversations.membership_version + 1`,
    [GENERAL_CONVERSATION],
  );
  // Statistics as autovacuum would have them after a channel grew to this size, not those of an empty table.
  await db.query('ANALYZE users');
  const writeMs = performance.now() - writeStart;
  const first = await db.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [`sim${run}m0`]);
  return { count, poolMs, shareKeysMs, writeMs, firstId: first.rows[0]!.id };
}
