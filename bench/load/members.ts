/**
 * The load bench's members on Enclave: N `TestMember`s (server/src/testing/member.ts), each from an
 * address of its own through X-Forwarded-For (the server runs with TRUST_PROXY=1 for the bench
 * only), so that the per-address login and registration limits hold for each as for a real member.
 *
 * The shortcut: RSA-2048 generation costs ~120 ms a member in Node, two minutes for 1,000 on the
 * client's core. The identity key pairs are drawn from a pool of KEY_POOL pairs made once; each
 * member still gets its own token, its private keys sealed under that token (PBKDF2, as the web
 * app does), and registers and signs in through the ordinary routes, so the server sees ordinary
 * registrations.
 */
import { randomBytes } from 'node:crypto';
import { sealPrivateKeys, toBase64 } from '@enclave/crypto';
import { fetchedMemberList, type MemberList } from '@enclave/client';
import { routes } from '@enclave/protocol';
import { TestMember } from '../../server/src/testing/member';

const KEY_POOL = 16;

/** One identity key pair as a member publishes and seals it: its public halves and their PKCS8. */
export type PoolEntry = {
  publicIdentity: { encryptionPublicKey: string; signingPublicKey: string };
  pkcs8: { encryption: Uint8Array; signing: Uint8Array };
};

/** A fresh RSA-OAEP-2048 and ECDSA P-256 key pair, exported as a member's client exports them. */
export async function keyPair(): Promise<PoolEntry> {
  // The parameters of docs/security.md §3, as @enclave/crypto's createAccount makes them.
  const [encryption, signing] = await Promise.all([
    crypto.subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, [
      'encrypt',
      'decrypt',
    ]),
    crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']),
  ]);
  const [encPkcs8, signPkcs8, encSpki, signSpki] = await Promise.all([
    crypto.subtle.exportKey('pkcs8', encryption.privateKey),
    crypto.subtle.exportKey('pkcs8', signing.privateKey),
    crypto.subtle.exportKey('spki', encryption.publicKey),
    crypto.subtle.exportKey('spki', signing.publicKey),
  ]);
  return {
    publicIdentity: { encryptionPublicKey: toBase64(new Uint8Array(encSpki)), signingPublicKey: toBase64(new Uint8Array(signSpki)) },
    pkcs8: { encryption: new Uint8Array(encPkcs8), signing: new Uint8Array(signPkcs8) },
  };
}

/** Member i's address: 10.x.y.z, one per member. */
export const memberAddress = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Runs `task` for 0..count-1, `width` at a time. */
export async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

/**
 * Invite keys minted by the creator with the master key, then N members registered and signed in;
 * member i on `baseUrls[i mod K]` (several instances of one network), where its socket opens too.
 */
export async function joinMembers(
  baseUrls: readonly string[],
  masterKey: string,
  count: number,
  progress: (line: string) => void,
): Promise<TestMember[]> {
  const creator = new TestMember.Anonymous(baseUrls[0]!);
  const auth = { authorization: `SuperAdmin ${masterKey}` };
  const keys: string[] = [];
  while (keys.length < count) {
    const { keys: minted } = await creator.call(routes.generateKeys, { body: { quantity: Math.min(100, count - keys.length) } }, auth);
    keys.push(...minted.map((k) => k.key));
  }
  const pool: PoolEntry[] = [];
  for (let i = 0; i < Math.min(KEY_POOL, count); i++) pool.push(await keyPair());
  const members = new Array<TestMember>(count);
  const run = randomBytes(3).toString('hex');
  await inParallel(count, 8, async (i) => {
    const entry = pool[i % pool.length]!;
    const account = async (token: string) => ({
      publicIdentity: entry.publicIdentity,
      encryptedPrivateKey: await sealPrivateKeys(token, entry.pkcs8),
    });
    members[i] = await TestMember.join(baseUrls[i % baseUrls.length]!, keys[i]!, `load${run}m${i}`, new Discarded(), {
      headers: { 'x-forwarded-for': memberAddress(i) },
      account,
    });
    if ((i + 1) % 200 === 0) progress(`${i + 1} members registered and signed in`);
  });
  const list = sharedMemberList(members[0]!);
  for (const m of members) m.shareMemberList(list);
  return members;
}

/**
 * One member list for all the members, fetched by the first (a member who joins meanwhile is
 * fetched by id, as the web app does): N members each holding the N-member list is N² (3,000
 * members: ~9 GB in the load client).
 */
function sharedMemberList(fetcher: TestMember): MemberList {
  return fetchedMemberList((route, input) => fetcher.call(route, input));
}

/** TestMember keeps every payload for the tests' secret scans; the bench keeps none. */
export class Discarded extends Array<string> {
  override push(): number {
    return 0;
  }
}
