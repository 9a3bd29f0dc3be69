import type { Session } from '../auth/auth-context';

/** Node stats, start/stop hosting, refresh, the host list with Connect, and the room view. */
export function P2pManager(_props: { session: Session; onLinkChange: (link: RTCPeerConnection | null) => void }) {
  return null;
}
