import { useCallback, useEffect, useState } from 'react';
import { failureToast, toast } from '../components/ui/toast-store';
import { browserPushHost, disablePush, enablePush, isSubscribed, PushRefused, type PushHost } from './push';

export type PushSetting = {
  /** Whether this browser has a push service: the switch is shown only then. */
  supported: boolean;
  enabled: boolean;
  busy: boolean;
  set: (on: boolean) => void;
};

const refusedTitle = 'Push notifications are not available';

/** The "notify me while Enclave is closed" switch: this browser's push subscription, on or off. */
export function usePush(host: PushHost = browserPushHost): PushSetting {
  const [enabled, setEnabled] = useState(false);
  const [busy, setBusy] = useState(host.supported);
  useEffect(() => {
    if (!host.supported) return;
    let live = true;
    isSubscribed(host)
      .then((on) => live && setEnabled(on))
      .catch(() => undefined)
      .finally(() => live && setBusy(false));
    return () => {
      live = false;
    };
  }, [host]);

  const set = useCallback(
    (on: boolean) => {
      setBusy(true);
      (on ? enablePush(host) : disablePush(host))
        .then(() => setEnabled(on))
        .catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          toast(
            failureToast(
              on ? refusedTitle : 'Push notifications are still on',
              error instanceof PushRefused ? reason : `The server said: ${reason}`,
            ),
          );
        })
        .finally(() => setBusy(false));
    },
    [host],
  );
  return { supported: host.supported, enabled, busy, set };
}
