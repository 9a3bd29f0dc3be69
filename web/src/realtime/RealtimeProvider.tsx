import { useEffect, useMemo, type ReactNode } from 'react';
import { useAuth } from '../auth/auth-context';
import { RealtimeSocket } from '../net/socket';
import { handleSecurityBreach } from './breach';
import { RealtimeContext } from './realtime-context';
import { leaveNotice } from './session-notice';

/** Keeps one socket open while a member is signed in and reacts to session-level frames. */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { state, endLocally } = useAuth();
  const signedInAs = state.status === 'loggedIn' ? state.session.user.id : null;
  // One socket per signed-in member; constructing it has no side effects, start() does.
  const socket = useMemo(() => (signedInAs ? new RealtimeSocket() : null), [signedInAs]);

  useEffect(() => {
    if (!socket) return;
    const offFrame = socket.onFrame((frame) => {
      if (frame.type === 'session_ended') {
        // A logout shares the session with this browser's other tabs: the member did it, no notice.
        if (frame.reason !== 'logout') leaveNotice('Session Ended', frame.message);
        void endLocally();
      }
      if (frame.type === 'security_breach') void handleSecurityBreach();
    });
    socket.start();
    return () => {
      offFrame();
      socket.stop();
    };
  }, [socket, endLocally]);

  return <RealtimeContext.Provider value={socket}>{children}</RealtimeContext.Provider>;
}
