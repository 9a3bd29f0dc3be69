import { WifiOff } from 'lucide-react';
import { useOnline } from '../lib/use-online';

/** Why nothing works yet when the login screen was opened offline (from the service worker's shell). */
export const offlineText = 'You are offline. Enclave needs the network to sign in.';

/** Said while the browser is offline; gone as soon as it is back online. */
export function OfflineNotice() {
  const online = useOnline();
  // role="status": said by screen readers when it appears, without taking focus. `contents`: the
  // empty region adds no gap to the page's grid.
  return (
    <div role="status" className="contents">
      {online ? null : (
        <p className="flex items-center gap-3 rounded-lg border border-amber-500/40 bg-amber-950/40 p-3 text-sm text-amber-200">
          <WifiOff className="size-4 shrink-0 text-amber-300" aria-hidden="true" />
          {offlineText}
        </p>
      )}
    </div>
  );
}
