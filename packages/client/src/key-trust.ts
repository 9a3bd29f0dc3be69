/**
 * Every decision about whose keys this member trusts (docs/security.md §5), in one place:
 *
 * - Trust on first use: the first fingerprint seen for a contact is pinned in a {@link PinStore}.
 * - A contact whose listed key differs from the pin is never trusted, neither to verify their
 *   messages nor to wrap a chain key for them, until the member accepts the new key.
 * - A member may mark a contact verified after comparing safety numbers. The mark belongs to the
 *   exact pinned key: a changed key shows no mark, and accepting a new key starts unverified.
 *   It lives only with the pins, so the server never learns whom a member verified.
 * - The member's own keys are the ones derived from their private keys; a copy from the server
 *   that differs is refused, never used.
 * - An epoch is wrapped only for recipients whose keys are the member list's and their pins, and a
 *   direct message only for its two members. A channel member whose keys are not usable is left
 *   out and reported rather than failing the epoch.
 *
 * The server hands out the member list and every key; this module is what stops it from slipping
 * in a key of its own choosing.
 */
import type { fingerprint, importPublicIdentity, PublicIdentity, SignedShareRecipient } from '@enclave/crypto';
import { isGroupConversation, type PublicUser } from '@enclave/protocol';
import type { MemberList } from './member-list';
import { PublicKeyCache } from './public-key-cache';

/** Contacts fingerprinted in one task by {@link KeyTrust.check}: about 30 ms of the page's thread in Chromium. */
const FINGERPRINT_SLICE = 1000;

/** Lets the thread go until its next task (other events, rendering) before going on. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** What {@link KeyTrust.verifyKeyFor} answers when the listed key of a member is not the one pinned for them. */
export const KEY_CHANGED = 'key_changed';

/** The type of {@link KEY_CHANGED}. */
export type KeyChanged = typeof KEY_CHANGED;

/** One pinned fingerprint, as a {@link PinStore} keeps it. */
export type PinRecord = {
  /** The member who pinned it. */
  owner: string;
  /** The member whose keys it is the fingerprint of. */
  contact: string;
  fingerprint: string;
  /** ISO time of pinning. */
  pinnedAt: string;
  /** The fingerprint the member marked verified, if any: it counts only while it is the pinned one. */
  verifiedFingerprint?: string;
};

/** Where pins live (IndexedDB in the browser, memory in tests). Pins must outlive a session. */
export type PinStore = {
  /**
   * The pins `ownerId` holds: only those of `contacts` when given (a contact with no pin is left
   * out), so checking a page of a large channel reads that page's pins, not every pin; else all.
   */
  read(ownerId: string, contacts?: readonly string[]): Promise<readonly PinRecord[]>;
  /** Stores these pins, each replacing any earlier pin of the same owner and contact. */
  write(records: readonly PinRecord[]): Promise<void>;
};

/** A contact's keys compared with their pin. */
export type PinStatus = {
  /** Safety number of the keys the server hands out now. */
  fingerprint: string;
  /** True when it differs from the one pinned the first time this member was seen. */
  changed: boolean;
  /** True when the member marked exactly these keys verified (never when `changed`). */
  verified: boolean;
};

/** A member an epoch's chain key is to be wrapped for, with the key it would be wrapped with. */
export type Recipient = { id: string; encryptionPublicKey: string };

/**
 * A member left out of a general-channel epoch because their published keys are not usable (they
 * do not import, or the encryption key is not RSA-2048 with e = 65537): nobody can wrap a chain
 * key for them, and they must not stop everyone else from sending.
 */
export type SkippedRecipient = { id: string; username: string };

/** What {@link KeyTrust.checkRecipients} allows: whom to wrap for, and whom it left out. */
export type RecipientCheck = { recipients: Recipient[]; skipped: SkippedRecipient[] };

/** A recipient's key is not the one this member knows: the message is not sent, and the member is told why. */
export class RecipientKeyError extends Error {
  override readonly name = 'RecipientKeyError';
}

/** The functions of `@enclave/crypto` that trust needs (fakes in tests). */
export type KeyTrustCrypto = {
  fingerprint: typeof fingerprint;
  importPublicIdentity: typeof importPublicIdentity;
};

/** Everything a {@link KeyTrust} is built from. */
export type KeyTrustOptions = {
  /** The member, with the public keys derived from their own private keys (never the server's copy). */
  self: PublicIdentity & { id: string };
  pins: PinStore;
  members: MemberList;
  crypto: KeyTrustCrypto;
  now?: () => number;
};

const ownKeyRefused = 'The server offered an unknown key for your own account: not sending.';
/** Why a wrap or an epoch is refused when the server offers a key that is not a member's own. */
export const unknownKeyRefused = 'The server offered an unknown key for a member of this conversation: not sending.';
const strangerRefused = 'The server listed someone else for a direct message, which is for its two members only: not sending.';

function keysOf(user: PublicIdentity): string {
  return `${user.encryptionPublicKey}/${user.signingPublicKey}`;
}

/**
 * The member's trust in keys: pins contacts on first sight, refuses changed keys until accepted,
 * and checks the recipients of every new epoch.
 *
 * @example
 * ```ts
 * const trust = new KeyTrust({ self: { id, ...ownPublicKeys }, pins, members, crypto: { fingerprint, importPublicIdentity } });
 * const statuses = await trust.check(users); // pins first-seen contacts
 * await trust.verify(bob.id, statuses.get(bob.id)!.fingerprint); // after comparing safety numbers
 * ```
 */
export class KeyTrust {
  private readonly options: KeyTrustOptions;
  private readonly now: () => number;
  private readonly publicKeys: PublicKeyCache;
  /**
   * Contacts whose listed keys were found equal to their pins, with those keys. Only agreement is
   * remembered: a changed key goes to the store every time, so accepting it (here or in another
   * tab) is seen at once.
   */
  private readonly agreed = new Map<string, string>();
  /** Fingerprints by the keys they are of: SHA-256 once per key, not once per check. */
  private readonly fingerprints = new Map<string, Promise<string>>();
  /**
   * Checks under way for {@link verifyKeyFor}, by member and keys: the messages of one sender
   * decrypted together wait for one check, not one each.
   */
  private readonly checking = new Map<string, Promise<PinStatus | undefined>>();
  /** Pin reads and writes run one at a time, so two first sightings cannot pin different keys. */
  private pinQueue: Promise<unknown> = Promise.resolve();

  constructor(options: KeyTrustOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.publicKeys = new PublicKeyCache(options.crypto.importPublicIdentity);
  }

  /**
   * Compares every listed contact with their pin, pinning those seen for the first time. The member
   * is not in the result (their own keys are never taken from the list), nor is a contact whose
   * listed keys are not even base64 (they are refused everywhere else).
   */
  async check(users: readonly PublicUser[]): Promise<Map<string, PinStatus>> {
    const contacts = users.filter((u) => u.id !== this.options.self.id);
    const seen: { user: PublicUser; fingerprint: string }[] = [];
    // A slice at a time, each in a task of its own: hashing 100,000 in one holds the page's thread
    // for seconds (the digests resolve as microtasks, so awaiting them alone never lets it go).
    for (let start = 0; start < contacts.length; start += FINGERPRINT_SLICE) {
      if (start > 0) await nextTask();
      const slice = contacts.slice(start, start + FINGERPRINT_SLICE);
      const hashed = await Promise.all(
        slice.map(async (user) => {
          try {
            return { user, fingerprint: await this.fingerprintOf(user) };
          } catch (error) {
            console.error(`the published keys of ${user.username} are malformed`, error);
            return null;
          }
        }),
      );
      for (const h of hashed) if (h) seen.push(h);
    }
    if (!seen.length) return new Map();
    return this.exclusive(async () => {
      const read = await this.options.pins.read(
        this.options.self.id,
        seen.map((c) => c.user.id),
      );
      const pins = new Map(read.map((r) => [r.contact, r]));
      const statuses = new Map<string, PinStatus>();
      const firstSeen: PinRecord[] = [];
      for (const { user, fingerprint } of seen) {
        const pinned = pins.get(user.id);
        if (pinned === undefined) firstSeen.push(this.record(user.id, fingerprint));
        const changed = pinned !== undefined && pinned.fingerprint !== fingerprint;
        const verified = !changed && pinned?.verifiedFingerprint === fingerprint;
        statuses.set(user.id, { fingerprint, changed, verified });
        if (changed) this.agreed.delete(user.id);
        else this.agreed.set(user.id, keysOf(user));
      }
      if (firstSeen.length) await this.options.pins.write(firstSeen);
      return statuses;
    });
  }

  /**
   * The member acknowledges this fingerprint as the contact's: it is pinned, unverified (a mark
   * made for earlier keys does not carry over).
   */
  async accept(contactId: string, fingerprint: string): Promise<void> {
    this.forgetChecks(contactId);
    await this.exclusive(async () => {
      this.agreed.delete(contactId);
      await this.options.pins.write([this.record(contactId, fingerprint)]);
    });
  }

  /**
   * The member compared the safety number for this fingerprint of the contact and marks it
   * verified: it is pinned (replacing a changed pin) with the mark.
   */
  async verify(contactId: string, fingerprint: string): Promise<void> {
    this.forgetChecks(contactId);
    await this.exclusive(async () => {
      const pinned = await this.pinOf(contactId);
      this.agreed.delete(contactId);
      const record = pinned?.fingerprint === fingerprint ? { ...pinned } : this.record(contactId, fingerprint);
      await this.options.pins.write([{ ...record, verifiedFingerprint: fingerprint }]);
    });
  }

  /** Takes the verified mark off the contact; their pin stays as it is. */
  async clearVerification(contactId: string): Promise<void> {
    await this.exclusive(async () => {
      const pinned = await this.pinOf(contactId);
      if (pinned?.verifiedFingerprint === undefined) return;
      const { verifiedFingerprint: _cleared, ...unverified } = pinned;
      await this.options.pins.write([unverified]);
    });
  }

  /**
   * The key to verify `userId`'s signatures with: the member's own for themselves, else the
   * member list's key once it agrees with the pin. Null when the member is not listed (yet) or
   * their keys do not import or could not be checked; {@link KEY_CHANGED} when the listed key is
   * not the pinned one (nothing is to be verified with it).
   */
  async verifyKeyFor(userId: string): Promise<CryptoKey | null | KeyChanged> {
    const self = this.options.self;
    if (userId === self.id) return this.publicKeys.verifyKey(self);
    const users = await this.options.members.current().catch(() => []);
    const user = users.find((u) => u.id === userId);
    if (!user) return null;
    if (this.agreed.get(user.id) !== keysOf(user)) {
      let status: PinStatus | undefined;
      try {
        status = await this.checkOnce(user);
      } catch (error) {
        console.error('could not check the key pins', error);
        return null;
      }
      if (!status) return null;
      if (status.changed) return KEY_CHANGED;
    }
    return this.publicKeys.verifyKey(user);
  }

  /**
   * Decides whom a new epoch's chain key may be wrapped for. Throws {@link RecipientKeyError}
   * unless every recipient may have it: the member themselves with their own key; everyone else
   * listed in the member list with exactly that key and agreeing with their pin (pinned now if
   * first seen); and, for a direct message, nobody but its two members (a group's members are the
   * server's to keep, as the channel's are). A recipient whose keys are not usable (they do not
   * import, or the encryption key is not RSA-2048 with e = 65537) refuses a direct message, but in
   * the general channel and in a group is only left out and named in `skipped`: one such account
   * must not stop the conversation (docs/security.md §4).
   */
  async checkRecipients(receiverId: string, recipients: readonly Recipient[]): Promise<RecipientCheck> {
    const self = this.options.self;
    const direct = receiverId !== 'all' && !isGroupConversation(receiverId);
    if (direct && recipients.some((r) => r.id !== self.id && r.id !== receiverId)) {
      throw new RecipientKeyError(strangerRefused);
    }
    // The member's own key is always the local copy: a server that lists the member with a key of
    // its own would otherwise receive the chain key.
    if (recipients.some((r) => r.id === self.id && r.encryptionPublicKey !== self.encryptionPublicKey)) {
      throw new RecipientKeyError(ownKeyRefused);
    }
    const others = recipients.filter((r) => r.id !== self.id);
    if (!others.length) return { recipients: [...recipients], skipped: [] };
    const users = await this.options.members.including(others.map((r) => r.id));
    const listed = others.map((r) => {
      const user = users.find((u) => u.id === r.id);
      if (!user || user.encryptionPublicKey !== r.encryptionPublicKey) throw new RecipientKeyError(unknownKeyRefused);
      return user;
    });
    const statuses = await this.check(listed);
    const skipped: SkippedRecipient[] = [];
    for (const user of listed) {
      const status = statuses.get(user.id);
      // A changed key is a question of trust, asked before usability: the member must decide.
      if (status?.changed) {
        throw new RecipientKeyError(`The key of ${user.username} changed: compare the safety number before sending.`);
      }
      if (!status || !(await this.publicKeys.keys(user))) {
        if (direct) throw new RecipientKeyError(`The key of ${user.username} is not a usable key: not sending.`);
        skipped.push({ id: user.id, username: user.username });
      }
    }
    return { recipients: recipients.filter((r) => !skipped.some((s) => s.id === r.id)), skipped };
  }

  /**
   * Whom a channel secret may be wrapped for (packages/crypto/src/channel-keys.ts): every one listed
   * in the member list and agreeing with their pin (pinned now if first seen), each with that
   * listed signing key, under which `wrapShares` then checks their share key's signature (in the
   * wrap's workers, beside the wrap), so a server cannot put a key of its own in a member's place.
   * Throws {@link RecipientKeyError} otherwise. The member's own share key is the caller's local
   * copy, never checked here.
   */
  async checkShareRecipients(
    pending: readonly { id: string; shareKey: { sharePublicKey: string; signature: string } }[],
  ): Promise<SignedShareRecipient[]> {
    if (pending.some((p) => p.id === this.options.self.id)) throw new RecipientKeyError(ownKeyRefused);
    if (!pending.length) return [];
    const byId = new Map((await this.options.members.including(pending.map((p) => p.id))).map((u) => [u.id, u]));
    const listed = pending.map((p) => {
      const user = byId.get(p.id);
      if (!user) throw new RecipientKeyError(unknownKeyRefused);
      return user;
    });
    // Members whose keys agreed with their pins before are not read again (as in verifyKeyFor).
    const statuses = await this.check(listed.filter((u) => this.agreed.get(u.id) !== keysOf(u)));
    return pending.map(({ id, shareKey }, i) => {
      const user = listed[i]!;
      if (statuses.get(id)?.changed) {
        throw new RecipientKeyError(`The key of ${user.username} changed: compare the safety number before sending.`);
      }
      if (this.agreed.get(id) !== keysOf(user)) throw new RecipientKeyError(unknownKeyRefused);
      return { id, ...shareKey, signingPublicKey: user.signingPublicKey };
    });
  }

  /** The member's pin status, from the check of them already under way if there is one. */
  private checkOnce(user: PublicUser): Promise<PinStatus | undefined> {
    const key = `${user.id}/${keysOf(user)}`;
    const pending = this.checking.get(key);
    if (pending) return pending;
    const check = this.check([user]).then((statuses) => statuses.get(user.id));
    this.checking.set(key, check);
    // Only this check: one started after forgetChecks may hold the key by now.
    const done = () => {
      if (this.checking.get(key) === check) this.checking.delete(key);
    };
    check.then(done, done);
    return check;
  }

  /**
   * Drops the contact's checks under way before a new pin is queued: one queued ahead of the write
   * reads the old pin, and reusing it after the write would answer KEY_CHANGED for the accepted key.
   * A later check queues behind the write. (clearVerification keeps the pinned key, so its checks stay valid.)
   */
  private forgetChecks(contactId: string): void {
    for (const key of this.checking.keys()) if (key.startsWith(`${contactId}/`)) this.checking.delete(key);
  }

  private fingerprintOf(user: PublicUser): Promise<string> {
    const keys = keysOf(user);
    let found = this.fingerprints.get(keys);
    if (!found) {
      found = this.options.crypto.fingerprint(user);
      this.fingerprints.set(keys, found);
    }
    return found;
  }

  private async pinOf(contactId: string): Promise<PinRecord | undefined> {
    return (await this.options.pins.read(this.options.self.id, [contactId])).find((r) => r.contact === contactId);
  }

  private record(contactId: string, fingerprint: string): PinRecord {
    return { owner: this.options.self.id, contact: contactId, fingerprint, pinnedAt: new Date(this.now()).toISOString() };
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.pinQueue.catch(() => undefined).then(task);
    this.pinQueue = run;
    return run;
  }
}
