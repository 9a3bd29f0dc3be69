/**
 * WebRTC signaling over the member's socket (docs/architecture.md §P2P): a signal goes to the other
 * party of its connection only, through the bus so that parties on different instances meet. The
 * server reads nothing of it beyond its shape; what the peers then exchange never reaches it.
 */
import { errorTexts } from '@enclave/protocol';
import type { AppContext } from '../context';
import { emergencyState } from '../creator/emergency-state';
import { isDatabaseUnavailable } from '../db/client';
import type { FrameFailure, FrameHandler } from '../realtime/dispatch';
import { eventTypes, recordEvent } from '../security/events';
import { closeConnection, findConnection, markOpen, type P2pConnection } from './registry';
import { p2pConnection, p2pSignal, serverFrame } from '../realtime/publish';

/** Tells both parties of a connection (on whatever instance their sockets are) how it stands. */
export async function announceConnection(ctx: AppContext, c: P2pConnection, state: 'requested' | 'open' | 'closed'): Promise<void> {
  await p2pConnection(ctx.gateway, c, state);
}

/** A signaling frame that failed: the member is told to try again. */
export const p2pFrameFailed: FrameFailure = (err, send, log) => {
  log[isDatabaseUnavailable(err) ? 'warn' : 'error']({ err }, 'p2p frame failed');
  send(serverFrame.error('Signaling is unavailable, try again'));
};

/** The handler of both signaling frames; their rate limit (clientFrames' `rateLimit`) was counted by the dispatcher. */
export function p2pFrameHandler(ctx: AppContext): FrameHandler<'p2p_signal' | 'p2p_close'> {
  return async ({ userId, origin }, frame, send) => {
    if ((await emergencyState(ctx.db)).active) return send(serverFrame.error(errorTexts.p2pSuspended));
    const connection = await findConnection(ctx.db, frame.connectionId);
    // Unknown and foreign connections are refused alike: an id says nothing of whose it is.
    if (!connection || (userId !== connection.hostId && userId !== connection.joinerId)) {
      await recordEvent(ctx.db, origin, {
        type: eventTypes.p2pSignalRefused,
        severity: 'medium',
        userId,
        details: { frame: frame.type, connectionId: frame.connectionId },
      });
      return send(serverFrame.error('You are not a party of this P2P connection'));
    }
    if (frame.type === 'p2p_close') {
      if (await closeConnection(ctx.db, connection.id)) await announceConnection(ctx, connection, 'closed');
      return;
    }
    const fromHost = userId === connection.hostId;
    const { kind } = frame.signal;
    // The joiner offers, the host answers; candidates go both ways.
    if ((kind === 'offer' && fromHost) || (kind === 'answer' && !fromHost)) {
      return send(serverFrame.error(kind === 'offer' ? 'Only the joiner sends the offer' : 'Only the host sends the answer'));
    }
    const to = fromHost ? connection.joinerId : connection.hostId;
    await p2pSignal(ctx.gateway, to, connection.id, userId, frame.signal);
    if (kind === 'answer' && (await markOpen(ctx.db, connection.id))) await announceConnection(ctx, connection, 'open');
  };
}
