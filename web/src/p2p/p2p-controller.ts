/**
 * A member's community-node session in this tab: hosting a room (one RTCPeerConnection per joiner)
 * or joining one (one to the host). Signaling goes over the member's socket; the room's frames go
 * over the data channels only. The UI reads {@link P2pController.snapshot} through `subscribe`.
 */
import type { FrameOf, FrameSource } from '@enclave/client';
import { parseP2pRoomFrame, routes, type P2pRoomFrame, type P2pRoomMemberFrame } from '@enclave/protocol';
import { call } from '../net/http';
import type { RealtimeSocket } from '../net/socket';
import { RoomHost } from './room-host';
import { RoomMember, type RoomEntry, type RoomMemberOptions } from './room-member';

/** A joiner whose data channel has not opened by then gives up: the member sees "Could not connect". */
const CONNECT_TIMEOUT_MS = 20_000;

export type RoomView = {
  nodeId: string;
  hostId: string;
  role: 'host' | 'joiner';
  status: 'connecting' | 'open' | 'closed';
  /** Why the room closed, in words for the member. */
  closedReason: string | null;
  members: string[];
  entries: RoomEntry[];
};

export type P2pSnapshot = {
  /** The node this tab serves, while hosting. */
  hostingNodeId: string | null;
  room: RoomView | null;
  /** The joiner's peer connection to the host while the room is open (for the connection monitor). */
  link: RTCPeerConnection | null;
};

/** What a room member needs besides the transport: keys, trust, crypto. */
export type MemberSetup = Omit<RoomMemberOptions, 'roomId' | 'send' | 'onChange'>;

/** One peer connection and the ICE candidates that came before its remote description. */
class PeerLink {
  readonly pc: RTCPeerConnection;
  private early: RTCIceCandidateInit[] = [];
  private described = false;

  constructor(
    readonly connectionId: string,
    iceServers: RTCIceServer[],
    socket: RealtimeSocket,
  ) {
    this.pc = new RTCPeerConnection({ iceServers });
    this.pc.onicecandidate = (event) => {
      if (!event.candidate) return;
      const { candidate, sdpMid, sdpMLineIndex, usernameFragment } = event.candidate.toJSON();
      if (candidate === undefined) return;
      socket.send({
        type: 'p2p_signal',
        connectionId,
        signal: { kind: 'ice', payload: { candidate, sdpMid, sdpMLineIndex, usernameFragment } },
      });
    };
  }

  async describe(type: 'offer' | 'answer', sdp: string): Promise<void> {
    await this.pc.setRemoteDescription({ type, sdp });
    this.described = true;
    for (const candidate of this.early.splice(0)) await this.pc.addIceCandidate(candidate);
  }

  async addCandidate(candidate: RTCIceCandidateInit): Promise<void> {
    if (this.described) await this.pc.addIceCandidate(candidate);
    else this.early.push(candidate);
  }

  close(): void {
    this.pc.close();
  }
}

/**
 * While hosting: each joiner's peer connection by connection id, and the candidates of joiners
 * whose offer is still being answered (their link does not exist yet).
 */
type Hosting = {
  nodeId: string;
  relay: RoomHost;
  member: RoomMember;
  joiners: Map<string, { link: PeerLink; joinerId: string }>;
  early: Map<string, RTCIceCandidateInit[]>;
};
type Joined = {
  nodeId: string;
  hostId: string;
  link: PeerLink;
  channel: RTCDataChannel;
  member: RoomMember;
  timer: ReturnType<typeof setTimeout>;
  opened: boolean;
  /** The server says the host has no socket left (its node is offline). */
  hostOffline: boolean;
};

export class P2pController {
  private hosting: Hosting | null = null;
  private joined: Joined | null = null;
  private closedRoom: RoomView | null = null;
  private current: P2pSnapshot = { hostingNodeId: null, room: null, link: null };
  private readonly listeners = new Set<() => void>();
  private iceServers: { servers: Promise<RTCIceServer[]>; expiresAt: number } | null = null;

  constructor(
    private readonly socket: RealtimeSocket,
    private readonly frames: FrameSource,
    private readonly setup: MemberSetup,
  ) {}

  /** Listens for signaling; the returned function leaves every room and stops serving. */
  start(): () => void {
    const offs = [
      this.frames.on(
        'p2p_signal',
        (frame) => void this.onSignal(frame).catch((error: unknown) => console.warn('p2p: signaling failed', error)),
      ),
      this.frames.on('p2p_connection', (frame) => {
        if (frame.state === 'closed') this.onClosed(frame.connectionId);
      }),
      this.frames.on('presence', (frame) => this.onPresence(frame)),
      this.frames.on('error', (frame) => {
        if (this.joined || this.hosting) console.warn('p2p: the server refused a frame:', frame.message);
      }),
    ];
    const unsubscribe = () => offs.forEach((off) => off());
    // Closing the peer connections as the tab goes tells the other ends at once; left to the
    // browser, a peer may only notice when its connection times out.
    const gone = () => {
      this.leave();
      this.stopServing();
    };
    window.addEventListener('pagehide', gone);
    return () => {
      unsubscribe();
      window.removeEventListener('pagehide', gone);
      gone();
    };
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): P2pSnapshot => this.current;

  /** Starts serving a node this tab registered (POST /api/p2p/host answered with it). */
  host(nodeId: string): void {
    this.leave();
    this.stopServing();
    const member = this.newMember(nodeId, (frame) => relay.send(frame));
    const relay = new RoomHost(this.setup.self.id, (frame) => member.receive(frame));
    this.hosting = { nodeId, relay, member, joiners: new Map(), early: new Map() };
    this.changed();
  }

  /** The node is gone (DELETE /api/p2p/host answered): every joiner's connection closes. */
  stopServing(): void {
    const hosting = this.hosting;
    if (!hosting) return;
    this.hosting = null;
    for (const { link } of hosting.joiners.values()) link.close();
    this.changed();
  }

  /** Joins a node: the server opened a connection (POST /api/p2p/connect), this tab offers. */
  async join(connection: { connectionId: string; nodeId: string; hostId: string }): Promise<void> {
    this.leave();
    this.closedRoom = null;
    const link = new PeerLink(connection.connectionId, await this.loadIceServers(), this.socket);
    const channel = link.pc.createDataChannel('room', { ordered: true });
    const member = this.newMember(connection.nodeId, (frame) => this.sendToHost(channel, frame));
    const timer = setTimeout(() => this.endJoined('Could not connect: the host did not answer in time'), CONNECT_TIMEOUT_MS);
    const joined: Joined = { ...connection, link, channel, member, timer, opened: false, hostOffline: false };
    this.joined = joined;
    channel.onopen = () => {
      clearTimeout(timer);
      joined.opened = true;
      // The host sends nothing on this channel before the hello arrives (see answer()).
      this.sendToHost(channel, { type: 'hello' });
      this.changed();
    };
    channel.onmessage = (event) => {
      const frame = parseP2pRoomFrame(event.data);
      if (frame && frame.type !== 'hello') member.receive(frame);
      else console.warn('p2p: ignoring a room frame that is not valid');
    };
    // A host's tab closing ends its channel at once. A host gone without a word (a crash) fails
    // the connection only after ~30 s; once its socket is gone too, the first silence is enough.
    channel.onclose = () => this.lost(joined);
    link.pc.onconnectionstatechange = () => {
      const state = link.pc.connectionState;
      if (state === 'failed' || state === 'closed' || (state === 'disconnected' && joined.hostOffline)) this.lost(joined);
    };
    const offer = await link.pc.createOffer();
    await link.pc.setLocalDescription(offer);
    if (this.joined !== joined) return;
    if (
      !this.socket.send({ type: 'p2p_signal', connectionId: connection.connectionId, signal: { kind: 'offer', payload: offer.sdp ?? '' } })
    ) {
      this.endJoined('Could not connect: not connected to the server');
    }
    this.changed();
  }

  /** Leaves the joined room, telling the server so the host's slot frees at once. */
  leave(): void {
    const joined = this.joined;
    if (!joined) return;
    this.socket.send({ type: 'p2p_close', connectionId: joined.link.connectionId });
    this.closeJoined();
    this.closedRoom = null;
    this.changed();
  }

  /** Sends an end-to-end encrypted message to the room this tab is in. */
  say(text: string): Promise<void> {
    const member = this.joined?.member ?? this.hosting?.member;
    if (!member) return Promise.reject(new Error('You are not in a room'));
    return member.say(text);
  }

  /** Dismisses a closed room's view. */
  dismiss(): void {
    this.closedRoom = null;
    this.changed();
  }

  private newMember(nodeId: string, send: (frame: P2pRoomMemberFrame) => void): RoomMember {
    return new RoomMember({ ...this.setup, roomId: `p2p:${nodeId}`, send, onChange: () => this.changed() });
  }

  private sendToHost(channel: RTCDataChannel, frame: P2pRoomFrame): void {
    if (channel.readyState !== 'open') throw new Error('The room is not connected');
    channel.send(JSON.stringify(frame));
  }

  private loadIceServers(): Promise<RTCIceServer[]> {
    // TURN credentials expire: asked again a minute before they do (never, without any).
    if (this.iceServers && this.iceServers.expiresAt <= Date.now() + 60_000) this.iceServers = null;
    const answer = (this.iceServers ??= {
      servers: call(routes.p2pConfig, {}).then((c) => {
        if (this.iceServers === answer && c.expiresAt) answer.expiresAt = Date.parse(c.expiresAt);
        return c.iceServers;
      }),
      expiresAt: Infinity,
    });
    // A failed fetch is not kept: the next attempt asks again.
    answer.servers.catch(() => {
      if (this.iceServers === answer) this.iceServers = null;
    });
    return answer.servers;
  }

  private onPresence(frame: FrameOf<'presence'>): void {
    const joined = this.joined;
    if (!joined) return;
    if (frame.online.includes(joined.hostId)) joined.hostOffline = false;
    else if (frame.offline.includes(joined.hostId)) {
      // A host's socket can drop while its tab and the room stay (a server restart): only a
      // connection already silent is given up.
      joined.hostOffline = true;
      if (joined.link.pc.connectionState === 'disconnected') this.lost(joined);
    }
  }

  private async onSignal(frame: FrameOf<'p2p_signal'>): Promise<void> {
    const { connectionId, signal } = frame;
    const joined = this.joined;
    if (joined?.link.connectionId === connectionId) {
      if (signal.kind === 'answer') await joined.link.describe('answer', signal.payload);
      else if (signal.kind === 'ice') await joined.link.addCandidate(signal.payload);
      return;
    }
    const hosting = this.hosting;
    if (!hosting) return;
    if (signal.kind === 'offer') return this.answer(hosting, connectionId, frame.from, signal.payload);
    if (signal.kind !== 'ice') return;
    const link = hosting.joiners.get(connectionId)?.link;
    if (link) await link.addCandidate(signal.payload);
    else hosting.early.set(connectionId, [...(hosting.early.get(connectionId) ?? []), signal.payload]);
  }

  /** A joiner's offer: a peer connection of its own, answered; its channel joins the room. */
  private async answer(hosting: Hosting, connectionId: string, joinerId: string, sdp: string): Promise<void> {
    hosting.joiners.get(connectionId)?.link.close();
    const link = new PeerLink(connectionId, await this.loadIceServers(), this.socket);
    const entry = { link, joinerId };
    hosting.joiners.set(connectionId, entry);
    for (const candidate of hosting.early.get(connectionId) ?? []) await link.addCandidate(candidate);
    hosting.early.delete(connectionId);
    const gone = () => {
      if (hosting.joiners.get(connectionId) !== entry) return;
      this.dropJoiner(hosting, connectionId);
      this.socket.send({ type: 'p2p_close', connectionId });
    };
    link.pc.ondatachannel = ({ channel }) => {
      // Nothing is sent when this channel opens: Chromium fires its open before the channel carries
      // data and silently drops what is sent meanwhile. Frames reach this end only once it carries
      // data, so the joiner enters the room, and is sent the roster, on their hello.
      channel.onmessage = (event) => {
        const roomFrame = parseP2pRoomFrame(event.data);
        if (roomFrame?.type === 'hello') hosting.relay.join(joinerId, channel);
        else if (roomFrame) hosting.relay.receive(joinerId, roomFrame);
        else console.warn('p2p: ignoring a room frame that is not valid');
      };
      channel.onclose = gone;
    };
    link.pc.onconnectionstatechange = () => {
      if (link.pc.connectionState === 'failed' || link.pc.connectionState === 'closed') gone();
    };
    await link.describe('offer', sdp);
    const answer = await link.pc.createAnswer();
    await link.pc.setLocalDescription(answer);
    this.socket.send({ type: 'p2p_signal', connectionId, signal: { kind: 'answer', payload: answer.sdp ?? '' } });
  }

  /** The server ended a connection (the other party closed it, a ban, the node stopped). */
  private onClosed(connectionId: string): void {
    if (this.joined?.link.connectionId === connectionId) {
      this.endJoined('Room closed: the host stopped hosting or the connection was ended');
      return;
    }
    this.hosting?.early.delete(connectionId);
    if (this.hosting?.joiners.has(connectionId)) this.dropJoiner(this.hosting, connectionId);
  }

  /** Closing a peer connection fires no event of its own: the roster is updated here. */
  private dropJoiner(hosting: Hosting, connectionId: string): void {
    const entry = hosting.joiners.get(connectionId);
    if (!entry) return;
    hosting.joiners.delete(connectionId);
    entry.link.close();
    // A joiner who reconnected is still in the room on their newer connection.
    if (![...hosting.joiners.values()].some((e) => e.joinerId === entry.joinerId)) hosting.relay.leave(entry.joinerId);
  }

  private lost(joined: Joined): void {
    if (this.joined !== joined) return;
    this.endJoined(joined.opened ? 'Host left: the room is closed' : 'Could not connect: the connection to the host failed');
  }

  private endJoined(reason: string): void {
    const joined = this.joined;
    if (!joined) return;
    console.warn(`p2p: ${reason}`);
    this.socket.send({ type: 'p2p_close', connectionId: joined.link.connectionId });
    this.closedRoom = { ...this.viewOf(joined), status: 'closed', closedReason: reason };
    this.closeJoined();
    this.changed();
  }

  private closeJoined(): void {
    const joined = this.joined;
    if (!joined) return;
    this.joined = null;
    clearTimeout(joined.timer);
    joined.channel.onclose = null;
    joined.link.pc.onconnectionstatechange = null;
    joined.link.close();
  }

  private viewOf(joined: Joined): RoomView {
    return {
      nodeId: joined.nodeId,
      hostId: joined.hostId,
      role: 'joiner',
      status: joined.channel.readyState === 'open' ? 'open' : 'connecting',
      closedReason: null,
      members: joined.member.members,
      entries: joined.member.entries,
    };
  }

  private changed(): void {
    const { joined, hosting } = this;
    let room: RoomView | null = this.closedRoom;
    if (joined) room = this.viewOf(joined);
    else if (hosting) {
      room = {
        nodeId: hosting.nodeId,
        hostId: this.setup.self.id,
        role: 'host',
        status: 'open',
        closedReason: null,
        members: hosting.member.members,
        entries: hosting.member.entries,
      };
    }
    const link = joined && joined.channel.readyState === 'open' ? joined.link.pc : null;
    this.current = { hostingNodeId: hosting?.nodeId ?? null, room, link };
    for (const listener of this.listeners) listener();
  }
}
