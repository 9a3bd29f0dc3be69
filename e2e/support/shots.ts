/**
 * Screenshots for a look by eye, one folder per story: `$ENCLAVE_SHOTS_DIR/<story>/<name>.png`,
 * under `enclave-shots` in the system's temporary directory unless ENCLAVE_SHOTS_DIR says where.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';

export type Shot = (page: Page, name: string, opts?: { toasts?: boolean }) => Promise<void>;

/** The screenshot function of one story; toasts are left out of a shot unless they are its point. */
export function storyShots(story: string): Shot {
  const dir = path.join(process.env.ENCLAVE_SHOTS_DIR ?? path.join(os.tmpdir(), 'enclave-shots'), story);
  return async (page, name, { toasts = false } = {}) => {
    fs.mkdirSync(dir, { recursive: true });
    const style = toasts ? undefined : 'li[data-state] { visibility: hidden !important; }';
    await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true, style });
  };
}
