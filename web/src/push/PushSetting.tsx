import { useId } from 'react';
import { usePush } from './use-push';

/**
 * The Web Push switch, beside the desktop notifications and in their style; per browser, as it
 * says. Not shown where the browser has no PushManager.
 */
export function PushSetting() {
  const id = useId();
  const hintId = useId();
  const setting = usePush();
  if (!setting.supported) return null;
  return (
    <>
      <label htmlFor={id} className="flex shrink-0 cursor-pointer items-center gap-1.5">
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-describedby={hintId}
          className="size-3.5 accent-emerald-500"
          checked={setting.enabled}
          disabled={setting.busy}
          onChange={(e) => setting.set(e.target.checked)}
        />
        Push notifications when Enclave is closed
      </label>
      <p id={hintId} className="basis-full text-right text-[11px] text-muted">
        This browser only. The push says &quot;New message&quot;, nothing more, and goes through the browser maker&apos;s push service.
      </p>
    </>
  );
}
