/**
 * The P2P test suite's real checks, in the browser: a ping over the member's socket, an offer from
 * a fresh RTCPeerConnection, and a loop-back of two peer connections in this page joined to each
 * other without a server, over which echoes and a bulk transfer are timed.
 */
import type { FrameSource } from '@enclave/client';
import type { RealtimeSocket } from '../../net/socket';
import { selectedPair } from './connection-health';
import { RTT_ECHOES, THROUGHPUT_BYTES, THROUGHPUT_CHUNK_BYTES } from './p2p-tests';

const PONG_TIMEOUT_MS = 5_000;
const ECHO_TIMEOUT_MS = 5_000;
const TRANSFER_TIMEOUT_MS = 30_000;
/** Sending pauses while more than this waits in the channel's buffer, and resumes under a quarter of it. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** The loop-back's far end answers this with the bytes it has received (channels are ordered, so all of them). */
const BYTES_QUERY = 'bytes?';
export const STOPPED = 'The suite was stopped.';
const CHANNEL_CLOSED = 'The loop-back channel closed.';

/** Settles with `promise`, or rejects with `message` after `ms`, or when `signal` aborts. */
function within<T>(promise: Promise<T>, ms: number, message: string, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listening = new AbortController();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    if (signal?.aborted) reject(new Error(STOPPED));
    signal?.addEventListener('abort', () => reject(new Error(STOPPED)), { signal: listening.signal });
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    listening.abort();
  });
}

/**
 * The round-trip time of a ping over the member's socket, in ms. The ping frame carries no id (the
 * protocol allows none), but the server answers pings in order, one pong each: the pongs owed to
 * pings already in flight (the socket's heartbeat) come first and are skipped.
 */
export function pingSocket(realtime: { socket: RealtimeSocket; frames: FrameSource } | null, signal?: AbortSignal): Promise<number> {
  const socket = realtime?.socket;
  if (!realtime || !socket || socket.state !== 'authenticated') {
    return Promise.reject(
      new Error(`The real-time connection to the server is not open and signed in (it is ${socket?.state ?? 'not started'}).`),
    );
  }
  let off: () => void = () => undefined;
  const pong = new Promise<number>((resolve, reject) => {
    let ahead = socket.pingsInFlight;
    const started = performance.now();
    off = realtime.frames.on('pong', () => {
      if (ahead > 0) ahead -= 1;
      else resolve(performance.now() - started);
    });
    if (!socket.send({ type: 'ping' })) reject(new Error('The real-time connection closed before the ping.'));
  });
  return within(pong, PONG_TIMEOUT_MS, `No pong within ${PONG_TIMEOUT_MS / 1000} s.`, signal).finally(() => off());
}

/** Creates a peer connection with a data channel and an offer; resolves with the time the offer took, in ms. */
export async function offerTime(): Promise<number> {
  if (typeof RTCPeerConnection === 'undefined') throw new Error('This browser has no WebRTC (RTCPeerConnection is missing).');
  const pc = new RTCPeerConnection();
  try {
    const started = performance.now();
    pc.createDataChannel('probe');
    const offer = await pc.createOffer();
    const ms = performance.now() - started;
    if (!offer.sdp?.includes('m=application')) throw new Error('The offer carries no data channel.');
    return ms;
  } finally {
    pc.close();
  }
}

export type Loopback = {
  /** The near end's channel; the far end echoes text and counts binary data. */
  channel: RTCDataChannel;
  /** The local candidate type of the pair ICE selected (host, srflx, prflx, relay), when reported. */
  candidateType: string | null;
  close: () => void;
};

async function selectedCandidateType(pc: RTCPeerConnection): Promise<string | null> {
  const stats = [...(await pc.getStats()).values()] as Record<string, unknown>[];
  const pair = selectedPair(stats);
  const local = stats.find((s) => s.id === pair?.localCandidateId);
  return typeof local?.candidateType === 'string' ? local.candidateType : null;
}

/** Two peer connections of this page joined to each other, candidates handed across directly. */
export async function openLoopback(iceServers: RTCIceServer[], timeoutMs: number, signal?: AbortSignal): Promise<Loopback> {
  const near = new RTCPeerConnection({ iceServers });
  const far = new RTCPeerConnection({ iceServers });
  const close = () => {
    near.close();
    far.close();
  };
  try {
    near.onicecandidate = (e) => {
      if (e.candidate) far.addIceCandidate(e.candidate).catch(() => undefined);
    };
    far.onicecandidate = (e) => {
      if (e.candidate) near.addIceCandidate(e.candidate).catch(() => undefined);
    };
    far.ondatachannel = ({ channel }) => {
      channel.binaryType = 'arraybuffer';
      let received = 0;
      channel.onmessage = ({ data }: MessageEvent<unknown>) => {
        if (data instanceof ArrayBuffer) received += data.byteLength;
        else if (data === BYTES_QUERY) channel.send(String(received));
        else if (typeof data === 'string') channel.send(data);
      };
    };
    const channel = near.createDataChannel('loopback', { ordered: true });
    const opened = new Promise<void>((resolve, reject) => {
      channel.onopen = () => resolve();
      channel.onerror = () => reject(new Error('The loop-back channel failed.'));
      near.onconnectionstatechange = () => {
        if (near.connectionState === 'failed') reject(new Error('ICE found no path between the two ends.'));
      };
    });
    await near.setLocalDescription();
    await far.setRemoteDescription(near.localDescription!);
    await far.setLocalDescription();
    await near.setRemoteDescription(far.localDescription!);
    await within(opened, timeoutMs, `The channel did not open within ${timeoutMs / 1000} s.`, signal);
    return { channel, candidateType: await selectedCandidateType(near).catch(() => null), close };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * The next text message on `channel`; rejects with `message` after `ms`, or when the channel closes
 * or `signal` aborts. Its listeners go in every case, so a late echo is not taken for a later one's.
 */
function nextText(channel: RTCDataChannel, ms: number, message: string, signal?: AbortSignal): Promise<string> {
  const listening = new AbortController();
  const text = new Promise<string>((resolve, reject) => {
    channel.addEventListener(
      'message',
      ({ data }: MessageEvent<unknown>) => {
        if (typeof data === 'string') resolve(data);
      },
      { signal: listening.signal },
    );
    channel.addEventListener('close', () => reject(new Error(CHANNEL_CLOSED)), { signal: listening.signal });
  });
  return within(text, ms, message, signal).finally(() => listening.abort());
}

/** The times of {@link RTT_ECHOES} echoes, one at a time, in ms. */
export async function echoTimes(channel: RTCDataChannel, signal?: AbortSignal): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RTT_ECHOES; i++) {
    const text = `echo ${i}`;
    const started = performance.now();
    const reply = nextText(channel, ECHO_TIMEOUT_MS, `Echo ${i + 1} did not come back within ${ECHO_TIMEOUT_MS / 1000} s.`, signal);
    channel.send(text);
    if ((await reply) !== text) throw new Error(`Echo ${i + 1} came back changed.`);
    times.push(performance.now() - started);
  }
  return times;
}

/** Resolves when the channel's buffer runs low; rejects when the channel closes or `signal` aborts. */
function drained(channel: RTCDataChannel, signal: AbortSignal): Promise<void> {
  const listening = new AbortController();
  return new Promise<void>((resolve, reject) => {
    channel.addEventListener('bufferedamountlow', () => resolve(), { signal: listening.signal });
    channel.addEventListener('close', () => reject(new Error(CHANNEL_CLOSED)), { signal: listening.signal });
    signal.addEventListener('abort', () => reject(new Error(STOPPED)), { signal: listening.signal });
  }).finally(() => listening.abort());
}

/** Sends {@link THROUGHPUT_BYTES} and waits for the far end to confirm them; resolves with bytes and ms. */
export async function measureThroughput(channel: RTCDataChannel, signal?: AbortSignal): Promise<{ bytes: number; ms: number }> {
  const chunk = new Uint8Array(THROUGHPUT_CHUNK_BYTES);
  channel.bufferedAmountLowThreshold = MAX_BUFFERED_BYTES / 4;
  // Ends the transfer once the result is decided (timed out, stopped, failed): the race alone would
  // leave it sending.
  const ended = new AbortController();
  const transfer = async () => {
    const started = performance.now();
    for (let sent = 0; sent < THROUGHPUT_BYTES; sent += chunk.byteLength) {
      if (ended.signal.aborted) throw new Error(STOPPED);
      if (channel.readyState !== 'open') throw new Error(CHANNEL_CLOSED);
      if (channel.bufferedAmount > MAX_BUFFERED_BYTES) await drained(channel, ended.signal);
      channel.send(chunk);
    }
    const confirmed = nextText(channel, TRANSFER_TIMEOUT_MS, 'The far end did not confirm the bytes.', ended.signal);
    channel.send(BYTES_QUERY);
    const bytes = Number(await confirmed);
    const ms = performance.now() - started;
    if (bytes !== THROUGHPUT_BYTES) throw new Error(`The far end received ${bytes} of ${THROUGHPUT_BYTES} bytes.`);
    return { bytes, ms };
  };
  return within(transfer(), TRANSFER_TIMEOUT_MS, `The transfer did not finish within ${TRANSFER_TIMEOUT_MS / 1000} s.`, signal).finally(
    () => ended.abort(),
  );
}
