/** A message row in the chat and its reply, reaction and edit controls, as the stories drive them. */
import { expect, type Page } from '@playwright/test';
import { conversationLog } from './history';

/** The row of the message whose text is exactly `text`. */
export const rowOf = (page: Page, text: string) =>
  conversationLog(page)
    .locator('[data-message-id]')
    .filter({ has: page.getByText(text, { exact: true }) });

/** Sends `text` from the composer and waits for it in the list. */
export async function sendFromComposer(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(rowOf(page, text)).toHaveCount(1);
}

/** Clicks one of a row's actions (shown on hover). */
export async function rowAction(page: Page, text: string, action: 'Reply' | 'React' | 'Edit message'): Promise<void> {
  const row = rowOf(page, text);
  await row.hover();
  await row.getByRole('button', { name: action, exact: true }).click();
}
