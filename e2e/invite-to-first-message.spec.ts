/**
 * The heart of the product, as two new members live it: redeem an invite, keep the token, sign in,
 * see each other online, talk in the channel and privately, survive a reload and a server restart,
 * log out. Afterwards, nothing the server saw, logged or stored holds a token, a private key or a
 * message's text.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from '@playwright/test';
import { readDatabase } from './support/database';
import { joinThroughUi, type Member } from './support/members';
import { EnclaveServer } from './support/server';
import { expect, test } from './support/test';
import { WireTap } from './support/wire';

/** Base64 of the DER that opens every unencrypted PKCS8 private key of each kind we use. */
const PKCS8_MARKERS = {
  rsa: 'IBADANBgkqhkiG9w0BAQEFAAS',
  ecdsa: 'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEH',
};

const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/**
 * Waits until `text` shows in `page`'s conversation, without a reload, and logs how long it took:
 * a figure for the record, not a bound (delivery latency is measured under bench/, where a noisy
 * machine cannot fail a test).
 */
async function arrival(page: Page, text: string): Promise<void> {
  const t0 = Date.now();
  await expect(log(page).getByText(text, { exact: true })).toBeVisible();
  console.log(`delivered in ${Date.now() - t0} ms: ${text}`);
}

/** Every row of every table, as text. */
async function dumpDatabase(server: EnclaveServer): Promise<string> {
  return readDatabase(server, async (db) => {
    const tables = await db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema in ('public', 'drizzle')",
    );
    let dump = '';
    for (const { table_name } of tables.rows) {
      const rows = await db.query(`select * from "${table_name}"`).catch(() => db.query(`select * from drizzle."${table_name}"`));
      dump += `${table_name}: ${JSON.stringify(rows.rows)}\n`;
    }
    return dump;
  });
}

test('invite to first message, surviving reload and restart, leaking nothing', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  const tap = new WireTap();
  const sent: string[] = [];
  let alice: Member | undefined;
  let bob: Member | undefined;
  try {
    // Staff mint two invite keys with the operator command while the server runs.
    const [aliceKey, bobKey] = server.generateKeys(2);

    const aliceContext = await browser.newContext({ baseURL: server.url });
    const bobContext = await browser.newContext({ baseURL: server.url });
    tap.attach(aliceContext);
    tap.attach(bobContext);
    alice = await joinThroughUi(aliceContext, aliceKey!, 'alice');
    bob = await joinThroughUi(bobContext, bobKey!, 'bob');

    // Each sees the other online.
    await expect(members(alice.page).getByRole('button', { name: /bob/ })).toContainText('Online');
    await expect(members(bob.page).getByRole('button', { name: /alice/ })).toContainText('Online');

    // The general channel, both ways, live.
    sent.push('Hello from Alice to the channel');
    await send(alice.page, sent.at(-1)!);
    await arrival(bob.page, sent.at(-1)!);
    sent.push('Bob answers in the channel ✓');
    await send(bob.page, sent.at(-1)!);
    await arrival(alice.page, sent.at(-1)!);

    // A direct message: Bob opens Alice, and Alice's DM with Bob shows it marked for her.
    await members(bob.page).getByRole('button', { name: /alice/ }).click();
    await expect(bob.page.getByRole('heading', { name: /Direct message · alice/ })).toBeVisible();
    sent.push('Only for Alice, privately');
    await send(bob.page, sent.at(-1)!);
    await members(alice.page).getByRole('button', { name: /bob/ }).click();
    await arrival(alice.page, sent.at(-1)!);
    await expect(log(alice.page).getByText('Encrypted for alice')).toBeVisible();
    sent.push('Alice replies in private');
    await send(alice.page, sent.at(-1)!);
    await arrival(bob.page, sent.at(-1)!);

    // A reload restores the session; the history is still there and readable.
    await alice.page.reload();
    await expect(alice.page).toHaveURL(/\/chat$/);
    await expect(log(alice.page).getByText(sent[0]!, { exact: true })).toBeVisible();
    await members(alice.page).getByRole('button', { name: /bob/ }).click();
    await expect(log(alice.page).getByText(sent[2]!, { exact: true })).toBeVisible();

    // A server restart: both pages reconnect on their own, then keep talking.
    await server.restart();
    for (const m of [alice, bob]) {
      await expect(m.page.locator('[data-connection-state="authenticated"]')).toBeVisible({ timeout: 40_000 });
    }
    sent.push('After the restart, still private');
    await send(bob.page, sent.at(-1)!);
    await arrival(alice.page, sent.at(-1)!);
    for (const m of [alice, bob]) {
      await m.page.reload();
      await expect(m.page).toHaveURL(/\/chat$/);
      await expect(log(m.page).getByText(sent[0]!, { exact: true })).toBeVisible();
    }
    // The token never rests in the browser's storage.
    for (const m of [alice, bob]) {
      const stored = await m.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
      expect(stored).not.toContain(m.token);
    }

    // Logout returns to /.
    await alice.page.getByRole('button', { name: 'Logout' }).click();
    await expect(alice.page).toHaveURL(new URL('/', server.url).toString());
    await alice.page.goto('/chat');
    await expect(alice.page).toHaveURL(new URL('/', server.url).toString());
  } finally {
    await alice?.context.close();
    await bob?.context.close();
    await server.stop();
  }

  // What the server saw, said and kept.
  try {
    const secrets = [alice!.token, bob!.token, ...sent, PKCS8_MARKERS.rsa, PKCS8_MARKERS.ecdsa];
    const places = {
      'HTTP and WebSocket payloads': tap.payloads.join('\n'),
      'server log': server.log,
      database: await dumpDatabase(server),
    };
    expect(tap.payloads.some((p) => p.startsWith('ws<'))).toBe(true);
    expect(places.database).toContain('encrypted_private_key');
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `${where} holds ${secret.slice(0, 24)}…`).toBe(false);
    }
  } finally {
    await server.dispose();
  }
});

test('the PKCS8 markers do find unencrypted private keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'der' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' });
  expect(rsa.toString('base64')).toContain(PKCS8_MARKERS.rsa);
  expect(ec.toString('base64')).toContain(PKCS8_MARKERS.ecdsa);
});
