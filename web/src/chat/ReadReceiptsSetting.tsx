import { useId } from 'react';
import type { ReadReceiptsSetting as Setting } from './use-read-receipts';

/** The member's read-receipt switch, beside the typing opt-out and in its style; reciprocal, as it says. */
export function ReadReceiptsSetting({ setting }: { setting: Setting }) {
  const id = useId();
  const hintId = useId();
  return (
    <>
      <label htmlFor={id} className="flex shrink-0 cursor-pointer items-center gap-1.5">
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-describedby={hintId}
          className="size-3.5 accent-emerald-500"
          checked={setting.checked}
          disabled={!setting.loaded || setting.busy}
          onChange={(e) => setting.set(e.target.checked)}
        />
        Send read receipts
      </label>
      <p id={hintId} className="basis-full text-right text-[11px] text-muted">
        If you turn this off, you won&apos;t see others&apos; read receipts either.
      </p>
    </>
  );
}
