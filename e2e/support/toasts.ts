/** Toasts, as a person reads them. */
import { expect, type Page } from '@playwright/test';

/** The open toast with this title (Radix also mirrors it into a live region; this is the visible one). */
export const toastWith = (page: Page, title: string) => page.locator('li[data-state="open"]').filter({ hasText: title });

/** A toast with this title is showing, and says this when given. */
export async function expectToast(page: Page, title: string, description?: string | RegExp): Promise<void> {
  const toast = toastWith(page, title);
  await expect(toast).toBeVisible();
  if (description !== undefined) await expect(toast).toContainText(description);
}
