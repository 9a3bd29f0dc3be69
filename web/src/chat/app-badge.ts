/**
 * The installed app's icon badge (the Badging API, where the browser has it): the member's total
 * unread count, cleared at zero and on sign-out. Only a number leaves the page, never who wrote.
 */

/** The part of `navigator` the badge needs; absent in browsers without the Badging API. */
export type BadgeHost = {
  setAppBadge?: (contents?: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
};

const host = (): BadgeHost => (typeof navigator === 'undefined' ? {} : (navigator as BadgeHost));

/** Shows `total` on the app's badge, or clears it at zero. Refusals (app not installed, say) change nothing else. */
export function showUnreadOnBadge(total: number, nav: BadgeHost = host()): void {
  if (!nav.setAppBadge) return;
  const done = total > 0 ? nav.setAppBadge(total) : (nav.clearAppBadge?.() ?? nav.setAppBadge(0));
  done.catch(() => undefined);
}

/** Clears the badge: a signed-out browser shows no count. */
export function clearUnreadBadge(nav: BadgeHost = host()): void {
  showUnreadOnBadge(0, nav);
}
