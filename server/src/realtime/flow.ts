/**
 * Per-socket flow control: what a socket may have queued towards its client (back-pressure), and
 * how many of its frames may be working at once (the task queue). Frames are encoded once for all
 * the sockets they go to.
 */
import type { ServerFrame } from '@enclave/protocol';
import { closeCodes } from '@enclave/protocol';
import type { WebSocket } from 'ws';
import type { WorkGate } from '../http/overload';
import { serverFrame } from './publish';

/**
 * How long a timed closing (Gateway.endSessionsTimed) waits for the bus to bring the event back
 * and for the clients to answer the close; sockets still open then are terminated.
 */
export const CLOSE_WAIT_MS = 2_000;
/**
 * Bytes a socket may have queued (ws's buffer and the kernel's unsent data) before it is dropped
 * with closeCodes.tryAgainLater instead of buffering without limit: a client that cannot keep up
 * (about 30 s of a busy channel) catches up from history when it comes back, as after any gap.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * Frames of one socket that may be working on the database at once (P2P signals, typing); more
 * wait in a bounded queue (MAX_SOCKET_QUEUED), past which they are refused with an error frame.
 */
export const MAX_SOCKET_TASKS = 4;
/** Frames of one socket waiting for one of its MAX_SOCKET_TASKS places; more are refused. */
export const MAX_SOCKET_QUEUED = 32;

/** A frame as the bytes every socket gets: encoded once, however many sockets it goes to. */
export function encode(frame: ServerFrame): Buffer {
  return Buffer.from(JSON.stringify(frame));
}

/**
 * Sends encoded text to an open socket; a socket too far behind is closed instead (see
 * MAX_BUFFERED_BYTES), and terminated if its client does not answer the close in time.
 */
export function sendText(socket: WebSocket, data: Buffer): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    socket.close(closeCodes.tryAgainLater, 'too far behind');
    void closedOrTerminated(socket, CLOSE_WAIT_MS);
    return;
  }
  socket.send(data, { binary: false });
}

/** Resolves once the socket is closed; terminates it if its client has not answered the close within `ms`. */
export function closedOrTerminated(socket: WebSocket, ms: number): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.terminate(), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * A socket's task queue: runs a signed-in member's frame within this socket's and this instance's
 * bounds. Frames that arrive together (a burst of ICE candidates, typing in two conversations)
 * wait their turn in a short queue; only past it is a frame refused.
 */
export function socketTasks(socket: WebSocket, gate: WorkGate, send: (frame: ServerFrame) => void) {
  let tasks = 0;
  const waiting: Array<() => void> = [];
  const runTask = (handle: () => Promise<void>, onError: (err: unknown) => void): void => {
    if (tasks >= MAX_SOCKET_TASKS && waiting.length < MAX_SOCKET_QUEUED) {
      waiting.push(() => runTask(handle, onError));
      return;
    }
    if (tasks >= MAX_SOCKET_TASKS || !gate.tryEnter()) return send(serverFrame.error('Too busy for this frame, try again'));
    tasks += 1;
    handle()
      .catch(onError)
      .finally(() => {
        tasks -= 1;
        gate.leave();
        if (socket.readyState === socket.OPEN) waiting.shift()?.();
      });
  };
  return runTask;
}
