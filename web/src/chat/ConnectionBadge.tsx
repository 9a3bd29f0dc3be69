import { Loader2, Wifi, WifiOff } from 'lucide-react';
import { Badge } from '../components/ui/Badge';
import type { SocketState } from '../net/socket';

const labels: Record<SocketState, string> = {
  idle: 'Offline',
  connecting: 'Connecting…',
  connected: 'Connected',
  authenticating: 'Authenticating…',
  authenticated: 'Secure connection',
  auth_failed: 'Authentication failed',
  disconnected: 'Reconnecting…',
};

const tones = {
  idle: 'neutral',
  connecting: 'warning',
  connected: 'warning',
  authenticating: 'warning',
  authenticated: 'success',
  auth_failed: 'danger',
  disconnected: 'danger',
} as const satisfies Record<SocketState, string>;

/** The real-time connection state, as text (for people and for tests). */
export function ConnectionBadge({ state }: { state: SocketState }) {
  const busy = state === 'connecting' || state === 'connected' || state === 'authenticating';
  return (
    <Badge tone={tones[state]} role="status" aria-label={`Connection: ${labels[state]}`} data-connection-state={state}>
      {busy ? (
        <Loader2 className="animate-spin" aria-hidden="true" />
      ) : state === 'authenticated' ? (
        <Wifi aria-hidden="true" />
      ) : (
        <WifiOff aria-hidden="true" />
      )}
      {labels[state]}
    </Badge>
  );
}
