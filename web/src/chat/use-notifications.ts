import type { DecryptResult } from '@enclave/client';
import type { Message } from '@enclave/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { mentions } from './mentions';
import { notificationFor, parseMuted, parseNotificationSetting, type NotificationSetting } from './notifications';

const settingKey = (selfId: string) => `enclave:notifications:${selfId}`;
const mutedKey = (selfId: string) => `enclave:notifications-muted:${selfId}`;

function readMuted(selfId: string): Set<string> {
  try {
    return parseMuted(localStorage.getItem(mutedKey(selfId)));
  } catch {
    return new Set();
  }
}

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
  /** The conversation on screen: the one "Mute this conversation" is about. */
  conversationId: string;
};

export type Notifications = {
  supported: boolean;
  setting: NotificationSetting;
  /** The browser refused permission when the member last turned notifications on. */
  refused: boolean;
  setEnabled: (on: boolean) => Promise<void>;
  setDetails: (on: boolean) => void;
  /** The conversation on screen is muted in this browser: only mentions of the member notify. */
  mutedHere: boolean;
  setMutedHere: (on: boolean) => void;
  /** Each live message, with what decrypting it gave. */
  onIncoming: (message: Message, result: DecryptResult | undefined) => void;
  /** Messages erased (expired, deleted): their notifications are closed. */
  onRemoved: (conversationId: string, ids: readonly number[]) => void;
};

/** Opt-in desktop notifications, remembered per member in this browser. */
export function useNotifications(selfId: string, deps: NotificationsDeps): Notifications {
  const [setting, setSettingState] = useState(() => readSetting(selfId));
  const [refused, setRefused] = useState(false);
  const [muted, setMutedState] = useState(() => readMuted(selfId));
  const current = useRef({ setting, deps, muted });
  /** Notifications still shown, by message id, so that an erased message's can be closed. */
  const shown = useRef(new Map<number, Notification>());
  useEffect(() => {
    current.current = { setting, deps, muted };
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

  const here = deps.conversationId;
  const setMutedHere = useCallback(
    (on: boolean) => {
      const next = new Set(readMuted(selfId));
      if (on) next.add(here);
      else next.delete(here);
      setMutedState(next);
      try {
        if (next.size) localStorage.setItem(mutedKey(selfId), JSON.stringify([...next]));
        else localStorage.removeItem(mutedKey(selfId));
      } catch {
        // Not remembered; the choice holds for this tab.
      }
    },
    [selfId, here],
  );

  const onIncoming = useCallback(
    (message: Message, result: DecryptResult | undefined) => {
      const {
        setting: now,
        muted: mutedNow,
        deps: { isInView, nameOf, open },
      } = current.current;
      const selfName = nameOf(selfId);
      const content = notificationFor(now, {
        own: message.senderId === selfId,
        inView: isInView(message.conversationId),
        senderName: nameOf(message.senderId),
        result,
        muted: mutedNow.has(message.conversationId),
        // Read from the text this browser decrypted: the mention never reaches the server.
        mentionsMe: result?.status === 'ok' && selfName !== undefined && mentions(result.text, selfName),
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

  return {
    supported: supported(),
    setting,
    refused,
    setEnabled,
    setDetails,
    mutedHere: muted.has(here),
    setMutedHere,
    onIncoming,
    onRemoved,
  };
}
