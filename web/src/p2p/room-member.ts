import { KEY_CHANGED, SendingEpochs, type EpochTransport, type KeyTrust, type MemberList, type Recipient } from '@enclave/client';
import type { Epoch, createEpoch, decryptMessage, encryptMessage, openEpochShare } from '@enclave/crypto';
import type { P2pRoomMemberFrame } from '@enclave/protocol';

/** A line of the room: a message and who could read it, or what went wrong with one. */
export type RoomEntry =
  | { kind: 'message'; id: string; senderId: string; text: string; readers: string[] }
  | { kind: 'notice'; id: string; text: string; senderId: string | null };

export type RoomMemberOptions = {
  /** The member, with their own encryption key (derived from their private key), never the list's. */
  self: { id: string; encryptionPublicKey: string };
  /** Binds epochs and messages to this room (the AAD's conversation): `p2p:<nodeId>`. */
  roomId: string;
  signKey: CryptoKey;
  decryptKey: CryptoKey;
  /** The member's trust, as in the chat: whom an epoch may be wrapped for, whose signatures hold. */
  trust: Pick<KeyTrust, 'checkRecipients' | 'verifyKeyFor'>;
  /** The member list: the keys of the roster's members are the ones listed there (the trust checks them). */
  members: MemberList;
  /** To the room: over the channel to the host, or the host's relay. */
  send(frame: P2pRoomMemberFrame): void;
  crypto: {
    createEpoch: typeof createEpoch;
    openEpochShare: typeof openEpochShare;
    encryptMessage: typeof encryptMessage;
    decryptMessage: typeof decryptMessage;
  };
  onChange(): void;
};

/**
 * One member's end-to-end encryption in a room, the same for host and joiners. Sending is the
 * chat's {@link SendingEpochs}, the room being the conversation: an epoch is wrapped for the
 * current roster (its version the membership version) and sent as an `epoch` frame, and replaced
 * at the first message after the roster changes (or after the chat's other limits), so a member
 * who left cannot read what follows and one who joined gets what is said from then on. Frames are
 * handled one at a time, in order: an epoch always before its messages.
 */
export class RoomMember {
  members: string[] = [];
  entries: RoomEntry[] = [];
  private version = -1;
  /** Epochs this member holds (their own, and others' they have a share of), with the members they were wrapped for. */
  private readonly epochs = new Map<string, { epoch: Epoch; readers: string[] }>();
  private readonly sending: SendingEpochs;
  private readonly transport: EpochTransport;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RoomMemberOptions) {
    const { self, signKey, crypto, trust } = options;
    this.sending = new SendingEpochs({
      self,
      signKey,
      crypto,
      trust,
      onEpochCreated: ({ epoch, recipients, skipped }) => {
        if (skipped.length)
          this.note(`Your messages are not encrypted for ${skipped.map((s) => s.username).join(', ')}: their keys are not usable`, null);
        this.epochs.set(epoch.epochId, { epoch, readers: recipients.map((r) => r.id) });
      },
    });
    this.transport = {
      // A room is many-member, like the channel: a member with unusable keys is left out, not refused.
      receiverId: 'all',
      members: () => this.roster(),
      upload: (epoch, shares) =>
        options.send({ type: 'epoch', senderId: self.id, epochId: epoch.epochId, version: epoch.membershipVersion, shares }),
    };
  }

  /** A frame from the room, in arrival order. */
  receive(frame: P2pRoomMemberFrame): void {
    void this.serial(async () => {
      try {
        await this.handle(frame);
      } catch (error) {
        console.warn(`p2p: could not process a ${frame.type} frame`, error);
        if (frame.type !== 'roster')
          this.note(`sent a ${frame.type === 'epoch' ? 'key' : 'message'} that could not be opened`, frame.senderId);
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
      const { self, roomId } = this.options;
      const { epoch, index, encryptedContent } = await this.sending.encrypt(roomId, { text }, this.transport);
      this.options.send({ type: 'message', senderId: self.id, epochId: epoch.epochId, index, encryptedContent });
      const readers = this.epochs.get(epoch.epochId)?.readers ?? [];
      this.entries = [...this.entries, { kind: 'message', id: `${epoch.epochId}:${index}`, senderId: self.id, text, readers }];
      this.options.onChange();
    });
  }

  /** The roster with the keys the member list gives its members (the member's own: their local copy). */
  private async roster(): Promise<{ membershipVersion: number; recipients: Recipient[] }> {
    const { self, members } = this.options;
    const ids = this.members;
    const membershipVersion = this.version;
    if (membershipVersion < 0) throw new Error('the room has not announced its members yet');
    const users = await members.including(ids.filter((id) => id !== self.id));
    const recipients = ids.flatMap((id): Recipient[] => {
      if (id === self.id) return [{ id, encryptionPublicKey: self.encryptionPublicKey }];
      const user = users.find((u) => u.id === id);
      return user ? [{ id, encryptionPublicKey: user.encryptionPublicKey }] : [];
    });
    return { membershipVersion, recipients };
  }

  private async handle(frame: P2pRoomMemberFrame): Promise<void> {
    const { self, roomId, decryptKey, crypto } = this.options;
    const selfId = self.id;
    if (frame.type === 'roster') {
      this.members = frame.members;
      this.version = frame.version;
      this.sending.membershipChanged(roomId, frame.version);
      return;
    }
    if (frame.senderId === selfId) return;
    const senderVerifyKey = await this.options.trust.verifyKeyFor(frame.senderId);
    if (!senderVerifyKey || senderVerifyKey === KEY_CHANGED) {
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
    const { version, plaintext: text } = await crypto.decryptMessage({
      epoch: held.epoch,
      index: frame.index,
      encryptedContent: frame.encryptedContent,
      senderVerifyKey,
    });
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
