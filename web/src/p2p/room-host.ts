import type { P2pRoomMemberFrame } from '@enclave/protocol';

/** The host's end of one joiner's data channel (RTCDataChannel in the app, fakes in tests). */
export type RoomChannel = { send(data: string): void };

/**
 * The host's side of a room: the roster (the host and every joiner whose hello arrived) and the
 * relay. A joiner's frame goes to every other member, the host included, as it came: the host
 * cannot read a message unless it holds a share of its epoch, like any member.
 */
export class RoomHost {
  private readonly joiners = new Map<string, RoomChannel>();
  private version = 0;

  /**
   * @param hostId - the host's own member id, first in every roster.
   * @param deliver - frames for the host itself: every roster, and what joiners send.
   */
  constructor(
    private readonly hostId: string,
    private readonly deliver: (frame: P2pRoomMemberFrame) => void,
  ) {
    this.announce();
  }

  /** A joiner's hello arrived on their channel. The server vouched for who they are (the connection's joinerId). */
  join(userId: string, channel: RoomChannel): void {
    this.joiners.set(userId, channel);
    this.announce();
  }

  /** A joiner's channel closed, or their connection ended. */
  leave(userId: string): void {
    if (this.joiners.delete(userId)) this.announce();
  }

  /**
   * A frame from a joiner's channel. Rosters are the host's alone, and a joiner speaks only for
   * themselves: anything else is dropped (signatures would refuse it further on anyway).
   */
  receive(fromUserId: string, frame: P2pRoomMemberFrame): void {
    if (!this.joiners.has(fromUserId)) return;
    if (frame.type === 'roster' || frame.senderId !== fromUserId) {
      console.warn(`p2p: dropped a ${frame.type} frame from a joiner that is not theirs to send`);
      return;
    }
    this.relay(frame, fromUserId);
    this.deliver(frame);
  }

  /** The host's own epoch or message, to every joiner. */
  send(frame: P2pRoomMemberFrame): void {
    this.relay(frame, this.hostId);
  }

  get members(): string[] {
    return [this.hostId, ...this.joiners.keys()];
  }

  private relay(frame: P2pRoomMemberFrame, except: string): void {
    const data = JSON.stringify(frame);
    for (const [userId, channel] of this.joiners) {
      if (userId === except) continue;
      try {
        channel.send(data);
      } catch (error) {
        // A channel closing right now: its close event removes the joiner.
        console.warn(`p2p: could not relay to ${userId}`, error);
      }
    }
  }

  private announce(): void {
    const frame: P2pRoomMemberFrame = { type: 'roster', version: this.version++, members: this.members };
    this.relay(frame, this.hostId);
    this.deliver(frame);
  }
}
