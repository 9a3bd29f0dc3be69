import { FrameDispatcher } from '@enclave/client';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, type ReactNode } from 'react';
import { useAuth } from '../auth/auth-context';
import { RealtimeSocket } from '../net/socket';
import { handleSecurityBreach } from './breach';
import { createMemberClient } from './member-client';
import { RealtimeContext, type Realtime } from './realtime-context';
import { leaveNotice } from './session-notice';

/**
 * Keeps one socket open while a member is signed in, hands its frames out through one dispatcher,
 * holds the member's one client, and reacts to session-level frames.
 */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { state, endLocally } = useAuth();
  const queryClient = useQueryClient();
  const session = state.status === 'loggedIn' ? state.session : null;
  const signedInAs = session?.user.id ?? null;
  // One socket and one client per signed-in member; constructing them has no side effects, start() does.
  const realtime = useMemo((): Realtime | null => {
    if (!session) return null;
    const frames = new FrameDispatcher();
    return { socket: new RealtimeSocket(), frames, client: createMemberClient(session, queryClient, frames) };
    // A new session object for the same member (a refresh of its fields) keeps the socket and client.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [signedInAs, queryClient]);

  useEffect(() => {
    if (!realtime) return;
    const { socket, frames, client } = realtime;
    const off = [
      socket.onFrame(frames.dispatch),
      frames.on('session_ended', (frame) => {
        // A logout shares the session with this browser's other tabs: the member did it, no notice.
        if (frame.reason !== 'logout') leaveNotice('Session Ended', frame.message);
        void endLocally();
      }),
      frames.on('security_breach', () => void handleSecurityBreach()),
    ];
    socket.start();
    return () => {
      off.forEach((unsubscribe) => unsubscribe());
      client.close();
      socket.stop();
    };
  }, [realtime, endLocally]);

  return <RealtimeContext.Provider value={realtime}>{children}</RealtimeContext.Provider>;
}
