import { useId } from 'react';
import { PushSetting } from '../push/PushSetting';
import { MuteSetting } from './MuteSetting';
import type { Notifications } from './use-notifications';

/** The member's choice of desktop notifications, beside the typing opt-out and in its style. */
export function NotificationSettings({ notifications }: { notifications: Notifications }) {
  const enabledId = useId();
  const detailsId = useId();
  if (!notifications.supported) return <PushSetting />;
  const on = notifications.setting !== 'off';
  return (
    <>
      <label htmlFor={enabledId} className="flex shrink-0 cursor-pointer items-center gap-1.5">
        <input
          id={enabledId}
          type="checkbox"
          className="size-3.5 accent-emerald-500"
          checked={on}
          onChange={(e) => void notifications.setEnabled(e.target.checked)}
        />
        Desktop notifications
      </label>
      {on ? (
        <label htmlFor={detailsId} className="flex shrink-0 cursor-pointer items-center gap-1.5">
          <input
            id={detailsId}
            type="checkbox"
            className="size-3.5 accent-emerald-500"
            checked={notifications.setting === 'details'}
            onChange={(e) => notifications.setDetails(e.target.checked)}
          />
          Show sender and message text
        </label>
      ) : null}
      {on ? <MuteSetting notifications={notifications} /> : null}
      {notifications.refused ? (
        <p role="alert" className="basis-full text-right text-red-300">
          The browser refused notifications for this site. Allow them in its site settings, then try again.
        </p>
      ) : null}
      <PushSetting />
    </>
  );
}
