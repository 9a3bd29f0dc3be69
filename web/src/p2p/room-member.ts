import type { Recipient, SkippedRecipient } from '@enclave/client';
import type { Epoch, createEpoch, decryptMessage, encryptMessage, openEpochShare } from '@enclave/crypto';
import type { P2pRoomFrame } from '@enclave/protocol';

/** A line of the room: a message and who could read it, or what went wrong with one. */
export type RoomEntry =
  | { kind: 'message'; id: string; senderId: string; text: string; readers: string[] }
  | { kind: 'notice'; id: string; text: string; senderId: string | null };

/** Chain keys run out after 100 messages (packages/crypto message-key.ts): then a new epoch. */
const MESSAGES_PER_EPOCH = 100;

export type RoomMemberOptions = {
  selfId: string;
  /** Binds epochs and messages to this room (the AAD's conversation): `p2p:<nodeId>`. */
  roomId: string;
  signKey: CryptoKey;
  decryptKey: CryptoKey;
  /** Whom a new epoch may be wrapped for among these ids, with their keys (KeyTrust's decision). */
  recipientsFor(ids: readonly string[]): Promise<{ recipients: Recipient[]; skipped: SkippedRecipient[] }>;
  /** The key to verify a member's signatures with; anything else means "do not trust". */
  verifyKeyFor(userId: string): Promise<CryptoKey | null | string>;
  /** To the room: over the channel to the host, or the host's relay. */
  send(frame: P2pRoomFrame): void;
  crypto: {
    createEpoch: typeof createEpoch;
    openEpochShare: typeof openEpochShare;
    encryptMessage: typeof encryptMessage;
    decryptMessage: typeof decryptMessage;
  };
  onChange(): void;
};

type OwnEpoch = { epoch: Epoch; version: number; readers: string[]; next: number };

/**
 * One member's end-to-end encryption in a room, the same for host and joiners: a sender's epoch is
 * wrapped for the current roster and replaced at the first message after the roster changes, so a
 * member who left cannot read what follows and one who joined gets what is said from then on.
 * Frames are handled one at a time, in order: an epoch always before its messages.
 */
export class RoomMember {
  members: string[] = [];
  entries: RoomEntry[] = [];
  private version = -1;
  private own: OwnEpoch | null = null;
  /** Epochs of others this member holds a share of, with the members they were wrapped for. */
  private readonly epochs = new Map<string, { epoch: Epoch; readers: string[] }>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RoomMemberOptions) {}

  /** A frame from the room, in arrival order. */
  receive(frame: P2pRoomFrame): void {
    void this.serial(async () => {
      try {
        await this.handle(frame);
      } catch (error) {
        console.warn(`p2p: could not process a ${frame.type} frame`, error);
        if (frame.type !== 'roster') this.note(`sent a ${frame.type === 'epoch' ? 'key' : 'message'} that could not be opened`, frame.senderId);
      }
      this.options.onChange();
    });
  }

  /**
   * Encrypts and sends a message, starting an epoch first when the roster changed. Rejects with
   * the reason (a changed key, say) when it was not sent.
   */
  say(text: string): Promise<void> {
    return this.serial(async () => {
      const { selfId, signKey, crypto } = this.options;
      let own = this.own;
      if (!own || own.version !== this.version || own.next >= MESSAGES_PER_EPOCH) own = await this.newEpoch();
      const index = own.next++;
      const encryptedContent = await crypto.encryptMessage({ epoch: own.epoch, index, plaintext: text, signKey });
      this.options.send({ type: 'message', senderId: selfId, epochId: own.epoch.epochId, index, encryptedContent });
      this.entries = [...this.entries, { kind: 'message', id: `${own.epoch.epochId}:${index}`, senderId: selfId, text, readers: own.readers }];
      this.options.onChange();
    });
  }

  private async newEpoch(): Promise<OwnEpoch> {
    const { selfId, roomId, signKey, crypto } = this.options;
    const version = this.version;
    const { recipients, skipped } = await this.options.recipientsFor(this.members);
    if (skipped.length) this.note(`Your messages are not encrypted for ${skipped.map((s) => s.username).join(', ')}: their keys are not usable`, null);
    const { epoch, shares } = await crypto.createEpoch({ conversationId: roomId, senderId: selfId, membershipVersion: version, recipients, signKey });
    this.options.send({ type: 'epoch', senderId: selfId, epochId: epoch.epochId, version, shares });
    this.own = { epoch, version, readers: recipients.map((r) => r.id), next: 0 };
    return this.own;
  }

  private async handle(frame: P2pRoomFrame): Promise<void> {
    const { selfId, roomId, decryptKey, crypto } = this.options;
    if (frame.type === 'roster') {
      this.members = frame.members;
      this.version = frame.version;
      return;
    }
    if (frame.senderId === selfId) return;
    const senderVerifyKey = await this.options.verifyKeyFor(frame.senderId);
    if (!(senderVerifyKey instanceof CryptoKey)) {
      this.note(
        senderVerifyKey === null
          ? `sent a ${frame.type} that could not be checked: not a known member`
          : 'has a changed key: their messages are not shown until you compare the safety number in the chat',
        frame.senderId,
      );
      return;
    }
    if (frame.type === 'epoch') {
      const share = frame.shares.find((s) => s.recipientId === selfId);
      // Wrapped for a roster without this member: its messages are not for them.
      if (!share) return;
      const epoch = await crypto.openEpochShare({
        share: { epochId: frame.epochId, conversationId: roomId, senderId: frame.senderId, membershipVersion: frame.version, ...share },
        recipientId: selfId,
        decryptKey,
        senderVerifyKey,
      });
      this.epochs.set(epoch.epochId, { epoch, readers: frame.shares.map((s) => s.recipientId) });
      return;
    }
    const held = this.epochs.get(frame.epochId);
    if (!held || held.epoch.senderId !== frame.senderId) {
      this.note('sent a message that was not encrypted for you (it was for the room before you joined)', frame.senderId);
      return;
    }
    const id = `${frame.epochId}:${frame.index}`;
    // A relayed copy of a message already shown (a host may replay): signed, but said once.
    if (this.entries.some((e) => e.id === id)) return;
    const { version, plaintext: text } = await crypto.decryptMessage({ epoch: held.epoch, index: frame.index, encryptedContent: frame.encryptedContent, senderVerifyKey });
    // Rooms carry text only (envelope v1); attachments are the chat's.
    if (version !== 1) {
      this.note('sent something a room cannot show', frame.senderId);
      return;
    }
    this.entries = [...this.entries, { kind: 'message', id, senderId: frame.senderId, text, readers: held.readers }];
  }

  /** `senderId`: the member the notice is about, named before `text`; null for the member themselves. */
  private note(text: string, senderId: string | null): void {
    this.entries = [...this.entries, { kind: 'notice', id: globalThis.crypto.randomUUID(), text, senderId }];
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.catch(() => undefined).then(task);
    this.queue = run;
    return run;
  }
}
