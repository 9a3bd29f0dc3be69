/**
 * The channel bench's real members: `TestMember`s that register with an invite key and a share
 * key through the ordinary routes, each from an address of its own (X-Forwarded-For, the server
 * trusting the proxy for the bench), with identity keys of their own, one member list between
 * them, every request recorded (calls.ts) and a socket open, so that they hear `membership_changed`
 * and their clients make the channel's next key after a removal as a browser's would.
 */
import { performance } from 'node:perf_hooks';
import { sealPrivateKeys } from '@enclave/crypto';
import { routes } from '@enclave/protocol';
import { TestMember, type TestSocket } from '../../server/src/testing/member';
import { Discarded, keyPair, memberAddress } from '../load/members';
import type { CallLog, SharedMemberList } from './calls';

export type RealMember = { member: TestMember; label: string; socket: TestSocket; joinMs: number };

/** `count` invite keys minted by the creator with the master key. */
export async function inviteKeys(baseUrl: string, masterKey: string, count: number): Promise<string[]> {
  const creator = new TestMember.Anonymous(baseUrl);
  const keys: string[] = [];
  while (keys.length < count) {
    const { keys: minted } = await creator.call(
      routes.generateKeys,
      { body: { quantity: Math.min(100, count - keys.length) } },
      { authorization: `SuperAdmin ${masterKey}` },
    );
    keys.push(...minted.map((k) => k.key));
  }
  return keys;
}

/**
 * Member `i` registers (with its share key) and signs in, reads `list`, is recorded in `log` as
 * `label`, and connects. `joinMs`: registration and sign-in, key generation left out.
 */
export async function joinReal(
  baseUrl: string,
  inviteKey: string,
  i: number,
  run: string,
  label: string,
  list: SharedMemberList,
  log: CallLog,
): Promise<RealMember> {
  const { member, joinMs } = await registerReal(baseUrl, inviteKey, i, run);
  member.shareMemberList(list);
  log.watch(member, label);
  // Made now, so that it hears the socket's frames from the first.
  void member.client;
  const socket = await member.connect();
  return { member, label, socket, joinMs };
}

/**
 * Member `i` registers with keys of its own (its share key among them) from its own address, and
 * signs in; no member list, log or socket yet. `joinMs`: registration and sign-in, key generation left out.
 */
export async function registerReal(
  baseUrl: string,
  inviteKey: string,
  i: number,
  run: string,
): Promise<{ member: TestMember; joinMs: number }> {
  // Keys of its own (a few of these members only): a pooled key would give two members one share key.
  const entry = await keyPair();
  const account = async (token: string) => ({
    publicIdentity: entry.publicIdentity,
    encryptedPrivateKey: await sealPrivateKeys(token, entry.pkcs8),
  });
  const start = performance.now();
  const member = await TestMember.join(baseUrl, inviteKey, `chan${run}r${i}`, new Discarded(), {
    headers: { 'x-forwarded-for': memberAddress(i + 1) },
    account,
  });
  return { member, joinMs: performance.now() - start };
}
