/** A KeyTrust over fake crypto and an in-memory member list and pins, for its tests. */
import type { PublicIdentity } from '@enclave/crypto';
import type { PublicUser } from '@enclave/protocol';
import type { KEY_CHANGED } from './key-trust';
import { KeyTrust, type PinStore } from './key-trust';
import { holding, mergeUsers } from './member-list';
import { MemoryPinStore } from './memory-pin-store';
import { listedMember } from './testing';

export const ALICE = '00000000-0000-4000-8000-00000000000a';
export const BOB = '00000000-0000-4000-8000-00000000000b';
export const CAROL = '00000000-0000-4000-8000-00000000000c';
export const DAVE = '00000000-0000-4000-8000-00000000000d';

/** Alice's own keys, derived from her private keys. */
export const ALICE_KEYS: PublicIdentity = { encryptionPublicKey: 'enc-alice', signingPublicKey: 'sig-alice' };

export function user(id: string, name: string, keys: Partial<PublicIdentity> = {}): PublicUser {
  return listedMember(id, name, { encryptionPublicKey: `enc-${name}`, signingPublicKey: `sig-${name}`, ...keys });
}

/** The fingerprint the fake crypto gives these keys. */
export const fp = (keys: PublicIdentity) => `fp(${keys.encryptionPublicKey}|${keys.signingPublicKey})`;

/** A fake verify key that says whose keys it was imported from. */
export type FakeKey = { imported: string };

export function setup(options: { users?: PublicUser[]; late?: PublicUser[]; pins?: PinStore } = {}) {
  let users = options.users ?? [user(ALICE, 'alice'), user(BOB, 'bob'), user(CAROL, 'carol')];
  /** `fetches`: the member list's fetches from the server, whole or by id. */
  const calls = { fetches: 0, imports: [] as string[], fingerprints: 0 };
  const pins = options.pins ?? new MemoryPinStore();
  const fresh = async () => {
    calls.fetches += 1;
    return [...users, ...(options.late ?? [])];
  };
  const make = () =>
    new KeyTrust({
      self: { id: ALICE, ...ALICE_KEYS },
      pins,
      now: () => Date.parse('2026-02-03T04:05:06.000Z'),
      members: {
        current: async () => users,
        fresh,
        including: (ids) =>
          holding(users, ids, {
            fresh,
            lookup: async (missing) => {
              calls.fetches += 1;
              return (options.late ?? []).filter((u) => missing.includes(u.id));
            },
            keep: (found) => mergeUsers(users, found),
          }),
      },
      crypto: {
        // Keys that are "not base64" fail here, as the real fingerprint does.
        fingerprint: async (keys) => {
          calls.fingerprints += 1;
          if (keys.encryptionPublicKey.includes('!')) throw new Error('malformed');
          return fp(keys);
        },
        // Keys that are base64 but no SPKI fail only here.
        importPublicIdentity: async (keys) => {
          calls.imports.push(keys.signingPublicKey);
          if (keys.encryptionPublicKey.startsWith('junk')) throw new Error('does not import');
          return { encryptKey: {} as CryptoKey, verifyKey: { imported: keys.signingPublicKey } as unknown as CryptoKey };
        },
      },
    });
  return {
    trust: make(),
    /** Another KeyTrust over the same pins: a new session of the same member. */
    again: make,
    pins,
    calls,
    setUsers: (next: PublicUser[]) => void (users = next),
  };
}

export const bobWithNewKey = user(BOB, 'bob', { encryptionPublicKey: 'enc-bob-2', signingPublicKey: 'sig-bob-2' });
export const keyOf = (key: CryptoKey | null | typeof KEY_CHANGED) => key as unknown as FakeKey | null | typeof KEY_CHANGED;
