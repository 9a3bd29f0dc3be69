import type { DecryptResult } from '@enclave/client';
import type { Message } from '@enclave/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { notificationFor, parseNotificationSetting, type NotificationSetting } from './notifications';

const settingKey = (selfId: string) => `enclave:notifications:${selfId}`;

/** Some browsers have no Notification (iOS outside an installed app): the control is not shown. */
const supported = () => typeof Notification !== 'undefined';

function readSetting(selfId: string): NotificationSetting {
  try {
    return parseNotificationSetting(localStorage.getItem(settingKey(selfId)));
  } catch {
    return 'off';
  }
}

export type NotificationsDeps = {
  /** use-unread.ts's decision, so that counts and notifications never disagree about "in view". */
  isInView: (conversationId: string) => boolean;
  nameOf: (userId: string) => string | undefined;
  /** Opens the message's conversation (the notification was clicked). */
  open: (message: Message) => void;
};

export type Notifications = {
  supported: boolean;
  setting: NotificationSetting;
  /** The browser refused permission when the member last turned notifications on. */
  refused: boolean;
  setEnabled: (on: boolean) => Promise<void>;
  setDetails: (on: boolean) => void;
  /** Each live message, with what decrypting it gave. */
  onIncoming: (message: Message, result: DecryptResult | undefined) => void;
  /** Messages erased (expired, deleted): their notifications are closed. */
  onRemoved: (conversationId: string, ids: readonly number[]) => void;
};

/** Opt-in desktop notifications, remembered per member in this browser. */
export function useNotifications(selfId: string, deps: NotificationsDeps): Notifications {
  const [setting, setSettingState] = useState(() => readSetting(selfId));
  const [refused, setRefused] = useState(false);
  const current = useRef({ setting, deps });
  /** Notifications still shown, by message id, so that an erased message's can be closed. */
  const shown = useRef(new Map<number, Notification>());
  useEffect(() => {
    current.current = { setting, deps };
  });

  const save = useCallback(
    (next: NotificationSetting) => {
      setSettingState(next);
      try {
        if (next === 'off') localStorage.removeItem(settingKey(selfId));
        else localStorage.setItem(settingKey(selfId), next);
      } catch {
        // Not remembered; the choice holds for this tab.
      }
    },
    [selfId],
  );

  const setEnabled = useCallback(
    async (on: boolean) => {
      if (!on) {
        save('off');
        return;
      }
      const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
      setRefused(permission !== 'granted');
      if (permission === 'granted') save('generic');
    },
    [save],
  );

  const setDetails = useCallback((on: boolean) => save(on ? 'details' : 'generic'), [save]);

  const onIncoming = useCallback(
    (message: Message, result: DecryptResult | undefined) => {
      const {
        setting: now,
        deps: { isInView, nameOf, open },
      } = current.current;
      const content = notificationFor(now, {
        own: message.senderId === selfId,
        inView: isInView(message.conversationId),
        senderName: nameOf(message.senderId),
        result,
      });
      // Permission can be withdrawn in the browser's settings at any time.
      if (!content || !supported() || Notification.permission !== 'granted') return;
      try {
        // The tag makes a newer message of the same conversation replace the older notification.
        const notification = new Notification(content.title, { body: content.body, tag: message.conversationId });
        shown.current.set(message.id, notification);
        notification.onclose = () => shown.current.delete(message.id);
        notification.onclick = () => {
          window.focus();
          open(message);
          notification.close();
        };
      } catch (error) {
        // Android's Chrome allows notifications only through a service worker.
        console.warn('could not show a notification', error);
      }
    },
    [selfId],
  );

  const onRemoved = useCallback((_conversationId: string, ids: readonly number[]) => {
    for (const id of ids) {
      shown.current.get(id)?.close();
      shown.current.delete(id);
    }
  }, []);

  return { supported: supported(), setting, refused, setEnabled, setDetails, onIncoming, onRemoved };
}
