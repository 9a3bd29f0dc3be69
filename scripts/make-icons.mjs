/**
 * Draws the app's install icons (web/public/icons/*.png) from the favicon's shield, rendered by
 * Debian's Chromium. Run once after changing the design: `node scripts/make-icons.mjs`; the PNGs
 * are committed, so builds never need a browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const out = path.resolve(import.meta.dirname, '../web/public/icons');
const shield =
  'M20 13c0 5-3.5 7.5-7.66 8.95a1 1 0 0 1-.67-.01C7.5 20.5 4 18 4 13V6a1 1 0 0 1 1-1c2 0 4.5-1.2 6.24-2.72a1.17 1.17 0 0 1 1.52 0C14.51 3.81 17 5 19 5a1 1 0 0 1 1 1z';
const lock = '<rect x="9" y="11" width="6" height="5" rx="1"/><path d="M10 11V9.5a2 2 0 0 1 4 0V11"/>';

/** `any`: a rounded tile; `maskable`: full bleed, the shield inside the central safe circle (40% radius). */
function svg(size, purpose) {
  const tile =
    purpose === 'maskable' ? '<rect width="24" height="24" fill="#07090d"/>' : '<rect width="24" height="24" rx="5" fill="#0e1219"/>';
  const scale = purpose === 'maskable' ? 0.55 : 0.72;
  const offset = (24 - 24 * scale) / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24">${tile}
<g transform="translate(${offset} ${offset}) scale(${scale})" fill="none" stroke="#34d399" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">
<path d="${shield}" fill="#0f2a22"/>${lock}</g></svg>`;
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
try {
  fs.mkdirSync(out, { recursive: true });
  const page = await browser.newPage();
  for (const purpose of ['any', 'maskable']) {
    for (const size of [192, 512]) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<style>html,body{margin:0;background:transparent}</style>${svg(size, purpose)}`);
      const name = purpose === 'any' ? `icon-${size}.png` : `maskable-${size}.png`;
      await page.locator('svg').screenshot({ path: path.join(out, name), omitBackground: true });
    }
  }
} finally {
  await browser.close();
}
