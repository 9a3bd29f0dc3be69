/**
 * Alice sends Bob a picture and a file in their direct message. Bob sees the picture, decrypted in
 * his browser, at its real size, and saves the file; yet nothing the server received, sent,
 * logged, stored in its database or wrote to its attachment store holds the picture's marker or
 * its bytes, and neither browser keeps the file in its storage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { browserData } from './support/browser-data';
import { dumpDatabase } from './support/database';
import { joinThroughUi, type Member } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';
import { WireTap } from './support/wire';

const shot = storyShots('send-an-encrypted-image');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width`×`height` RGB PNG of a colour gradient, with `marker` in a tEXt chunk. */
function pngWithMarker(width: number, height: number, marker: string): { png: Buffer; pixels: Buffer } {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter method, no interlace
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB
    for (let x = 0; x < width; x++) row.set([(x * 255) / width, (y * 255) / height, 160], 1 + x * 3);
    rows.push(row);
  }
  const pixels = deflateSync(Buffer.concat(rows));
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from(`Comment\0${marker}`, 'latin1')),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return { png, pixels };
}

async function attach(page: Page, file: { name: string; mimeType: string; buffer: Buffer }, caption: string): Promise<void> {
  // The attach button opens the browser's file chooser; the test answers it.
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: /Attach a file/ }).click();
  await (await chooser).setFiles(file);
  await expect(page.getByRole('button', { name: `Remove ${file.name}` })).toBeVisible();
  await page.getByRole('textbox', { name: 'Caption' }).fill(caption);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

async function expectAccessible(page: Page, where: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help}`);
  expect(grave, `${where}: axe`).toEqual([]);
}

test('an image sent is shown decrypted to the other member, and only ciphertext leaves the browsers', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  const tap = new WireTap();
  const marker = `png-marker-${crypto.randomUUID()}`;
  const fileMarker = `file-marker-${crypto.randomUUID()}`;
  const { png, pixels } = pngWithMarker(37, 23, marker);
  const notes = Buffer.from(`Meeting notes\n${fileMarker}\n`, 'utf8');
  let alice: Member | undefined;
  let bob: Member | undefined;
  try {
    const [aliceKey, bobKey] = server.generateKeys(2);
    const aliceContext = await browser.newContext({ baseURL: server.url, acceptDownloads: true });
    const bobContext = await browser.newContext({ baseURL: server.url, acceptDownloads: true });
    tap.attach(aliceContext);
    tap.attach(bobContext);
    alice = await joinThroughUi(aliceContext, aliceKey!, 'alice');
    bob = await joinThroughUi(bobContext, bobKey!, 'bob');
    await members(alice.page).getByRole('button', { name: /bob/ }).click();
    await members(bob.page).getByRole('button', { name: /alice/ }).click();

    // A file over 10 MB is refused in the composer, before anything is encrypted or sent. Chosen
    // from disk, as a member would: a buffer would be copied through the page's script heap.
    const huge = path.join(server.dataDir, 'huge.bin');
    fs.writeFileSync(huge, Buffer.alloc(10 * 1024 * 1024 + 1));
    const chooser = alice.page.waitForEvent('filechooser');
    await alice.page.getByRole('button', { name: /Attach a file/ }).click();
    await (await chooser).setFiles(huge);
    await expect(alice.page.getByRole('alert').filter({ hasText: 'File exceeds the 10 MB limit' })).toBeVisible();

    const t0 = Date.now();
    await attach(alice.page, { name: 'gradient.png', mimeType: 'image/png', buffer: png }, 'A gradient for you');
    const image = log(bob.page).getByRole('img', { name: 'gradient.png' });
    await expect(image).toBeVisible();
    console.log(`image shown to bob ${Date.now() - t0} ms after Send (a figure, not a bound)`);
    await expect(log(bob.page).getByText('A gradient for you', { exact: true })).toBeVisible();
    // Decoded by the browser from the decrypted bytes: its real size, from a blob: URL of the page.
    const size = await image.evaluate((img: HTMLImageElement) => ({ w: img.naturalWidth, h: img.naturalHeight, src: img.src }));
    expect(size).toMatchObject({ w: 37, h: 23 });
    expect(size.src).toMatch(/^blob:/);
    await expect(log(alice.page).getByRole('img', { name: 'gradient.png' })).toBeVisible();

    // Any other file: a download with its name and size, decrypted when asked for.
    await attach(alice.page, { name: 'notes.txt', mimeType: 'text/plain', buffer: notes }, '');
    const download = bob.page.waitForEvent('download');
    await log(bob.page)
      .getByRole('button', { name: `Download notes.txt (${notes.length} B)` })
      .click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('notes.txt');
    expect(fs.readFileSync((await saved.path())!)).toEqual(notes);

    for (const [width, height] of [
      [1366, 900],
      [390, 844],
    ] as const) {
      await bob.page.setViewportSize({ width, height });
      await expect(image).toBeVisible();
      expect(await bob.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await expectAccessible(bob.page, `bob's DM at ${width}px`);
      await shot(bob.page, `bob-sees-the-image-${width}`);
    }
    await alice.page.setViewportSize({ width: 390, height: 844 });
    await shot(alice.page, 'alice-sent-it-390');

    // Neither browser keeps the file: nothing new in its storage holds the marker.
    for (const m of [alice, bob]) {
      const stored = await m.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
      expect(stored).not.toContain(marker);
      expect((await browserData(m.page)).caches).toBe(0);
    }
  } finally {
    await alice?.context.close();
    await bob?.context.close();
    await server.stop();
  }

  try {
    const store = path.join(server.dataDir, 'attachments');
    const blobs = fs.readdirSync(store).map((name) => fs.readFileSync(path.join(store, name)));
    expect(blobs).toHaveLength(2);
    const places = {
      'HTTP and WebSocket payloads': tap.payloads.join('\n'),
      'server log': server.log,
      database: await dumpDatabase(server),
      'attachment store': blobs.map((b) => b.toString('latin1')).join('\n'),
    };
    // The upload did cross the wire, as ciphertext.
    expect(tap.payloads.some((p) => p.startsWith('POST') && p.includes('/api/attachments'))).toBe(true);
    const secrets = [
      marker,
      fileMarker,
      pixels.toString('latin1'),
      png.subarray(0, 64).toString('latin1'),
      'gradient.png',
      'A gradient for you',
    ];
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `${where} holds ${JSON.stringify(secret.slice(0, 24))}…`).toBe(false);
    }
  } finally {
    await server.dispose();
  }
});
