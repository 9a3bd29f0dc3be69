import { useId } from 'react';
import type { Notifications } from './use-notifications';

/** Mutes the conversation on screen in this browser; a mention of the member still notifies. */
export function MuteSetting({ notifications }: { notifications: Notifications }) {
  const id = useId();
  return (
    <label htmlFor={id} className="flex shrink-0 cursor-pointer items-center gap-1.5" title="Mentions of you still notify">
      <input
        id={id}
        type="checkbox"
        className="size-3.5 accent-emerald-500"
        checked={notifications.mutedHere}
        onChange={(e) => notifications.setMutedHere(e.target.checked)}
      />
      Mute this conversation (mentions still notify)
    </label>
  );
}
