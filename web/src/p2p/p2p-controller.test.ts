import { FrameDispatcher } from '@enclave/client';
import type { ClientFrame } from '@enclave/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RealtimeSocket } from '../net/socket';
import { P2pController, type MemberSetup } from './p2p-controller';

vi.mock('../net/http', () => ({ call: async () => ({ iceServers: [], expiresAt: null }) }));

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const NODE = '00000000-0000-4000-8000-0000000000d1';
const CONNECTION = '00000000-0000-4000-8000-0000000000c1';

/**
 * One end of a data channel, as Chromium keeps it: what arrives before this end carries data waits
 * until it does, and what is sent before then is dropped without an error.
 */
class FakeChannel {
  readyState: RTCDataChannelState = 'connecting';
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  readonly dropped: string[] = [];
  private carries = false;
  private other: FakeChannel | null = null;
  /** Sent before the other end exists. */
  private readonly outbox: string[] = [];
  /** Arrived before this end carries data. */
  private readonly inbox: string[] = [];

  send(data: string): void {
    if (this.readyState !== 'open') throw new DOMException('not open', 'InvalidStateError');
    if (!this.carries) this.dropped.push(data);
    else if (this.other) this.other.arrive(data);
    else this.outbox.push(data);
  }

  close(): void {
    this.readyState = 'closed';
  }

  /** The two ends meet; what either sent before goes over. */
  link(other: FakeChannel): void {
    this.other = other;
    other.other = this;
    for (const data of this.outbox.splice(0)) other.arrive(data);
    for (const data of other.outbox.splice(0)) this.arrive(data);
  }

  /** The stream underneath is open: what arrived meanwhile is delivered. */
  carry(): void {
    this.carries = true;
    for (const data of this.inbox.splice(0)) this.onmessage?.({ data });
  }

  private arrive(data: string): void {
    if (this.carries) this.onmessage?.({ data });
    else this.inbox.push(data);
  }
}

class FakePeerConnection {
  static made: FakePeerConnection[] = [];
  connectionState: RTCPeerConnectionState = 'new';
  onicecandidate: (() => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  ondatachannel: ((event: { channel: FakeChannel }) => void) | null = null;
  channel: FakeChannel | null = null;

  constructor() {
    FakePeerConnection.made.push(this);
  }

  createDataChannel(): FakeChannel {
    this.channel = new FakeChannel();
    return this.channel;
  }

  async createOffer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'offer', sdp: 'offer' };
  }

  async createAnswer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'answer', sdp: 'answer' };
  }

  async setLocalDescription(): Promise<void> {}
  async setRemoteDescription(): Promise<void> {}
  async addIceCandidate(): Promise<void> {}

  close(): void {
    this.connectionState = 'closed';
  }
}

/** A member's controller over a socket whose frames the test carries to the other party. */
function party(id: string) {
  const sent: ClientFrame[] = [];
  const socket = {
    send: (frame: ClientFrame) => {
      sent.push(frame);
      return true;
    },
  } as unknown as RealtimeSocket;
  const frames = new FrameDispatcher();
  // Keys, trust and crypto are for speaking; these tests only watch the roster.
  const setup = { self: { id, encryptionPublicKey: 'unused' } } as unknown as MemberSetup;
  const controller = new P2pController(socket, frames, setup);
  const stop = controller.start();
  /** Hands this party's signals so far to `to`, as the server relays them. */
  const relayTo = (to: FrameDispatcher) => {
    for (const frame of sent.splice(0)) {
      if (frame.type === 'p2p_signal')
        to.dispatch({ type: 'p2p_signal', connectionId: frame.connectionId, from: id, signal: frame.signal });
    }
  };
  return { controller, frames, relayTo, stop };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('P2pController', () => {
  beforeEach(() => {
    FakePeerConnection.made = [];
    vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
    vi.stubGlobal('window', new EventTarget());
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('gives a joiner the roster though the host’s end of the channel opens before it carries data', async () => {
    const alice = party(ALICE);
    const bob = party(BOB);
    alice.controller.host(NODE);
    await bob.controller.join({ connectionId: CONNECTION, nodeId: NODE, hostId: ALICE });
    bob.relayTo(alice.frames);
    await settle();
    alice.relayTo(bob.frames);
    await settle();

    // The order Chromium brings a channel up in: the joiner's end opens; the host's end is
    // announced and fires open while what it sends is still dropped; then it carries data.
    const [joinerPc, hostPc] = FakePeerConnection.made;
    const near = joinerPc!.channel!;
    near.readyState = 'open';
    near.carry();
    near.onopen?.();
    const far = new FakeChannel();
    far.readyState = 'open';
    far.link(near);
    hostPc!.ondatachannel?.({ channel: far });
    far.onopen?.();
    far.carry();
    await settle();

    expect(alice.controller.snapshot().room?.members).toEqual([ALICE, BOB]);
    expect(bob.controller.snapshot().room).toMatchObject({ status: 'open', members: [ALICE, BOB] });
    expect(far.dropped).toEqual([]);
    alice.stop();
    bob.stop();
  });
});
