/**
 * A rolling restart as docs/operations.md §5 ("Rolling restart") tells the operator to do it, behind
 * the shipped nginx configuration (deploy/nginx's files, e2e/support/nginx.ts): two instances on one
 * PostgreSQL and Redis, restarted one after the other (SIGTERM, wait for the exit, start again on
 * the same port, wait until its readiness check answers 200, then the next), while Alice and Bob each
 * send a numbered message every 300 ms through the composer. Every message reaches the other
 * member exactly once, none fails ("Send Failed", "Not sent").
 */
import { routes } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { conversationLog } from './support/history';
import type { Member } from './support/members';
import type { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, scaleOutSkipReason, test } from './support/two-instances';

const shot = storyShots('rolling-restart-behind-nginx');
const skip = scaleOutSkipReason();
test.skip(skip !== null, `skipped: ${skip}`);

/** Time between two messages of a member. */
const PACE_MS = 300;
/** The composer may wait for a socket for a while; the test fails on lost messages, not on this. */
const COMPOSER_WAIT_MS = 60_000;

const textOf = (username: string, n: number) => `Note ${n} from ${username}`;

/** A member who keeps writing numbered messages in the channel until stopped, and what their browser saw meanwhile. */
class Sender {
  /** Messages handed to the composer: `Note 1 from …` to `Note <sent> from …`. */
  sent = 0;
  /** The web app's own word for each send that failed for good (ChatPage.tsx logs "send failed"). */
  readonly failures: string[] = [];
  /** Sockets the page opened since it started sending (a restart of its instance makes it open another). */
  socketsOpened = 0;
  /** Answers of 500 and above from nginx or an instance, by status and path. */
  readonly serverErrors: string[] = [];
  /** Messages whose first click the composer did not take. */
  readonly clicksAgain: number[] = [];
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(readonly member: Member) {
    const { page } = member;
    page.on('console', (m) => {
      if (m.type() === 'error' && m.text().startsWith('send failed')) this.failures.push(m.text());
    });
    page.on('websocket', () => (this.socketsOpened += 1));
    page.on('response', (r) => {
      if (r.status() >= 500) this.serverErrors.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
  }

  start(): void {
    this.loop = this.write(this.member.page);
  }

  private async write(page: Page): Promise<void> {
    const box = page.getByRole('textbox', { name: 'Message' });
    const button = page.getByRole('button', { name: 'Send', exact: true });
    while (!this.stopped) {
      // The composer waits while the socket reconnects, and while the previous message is sent.
      await box.fill(textOf(this.member.username, this.sent + 1), { timeout: COMPOSER_WAIT_MS });
      // The composer empties when it takes a message. A click it did not take (the socket dropped
      // between Playwright's look at the button and the click, disabling it) leaves the text, as
      // it would for a person, who clicks again.
      let clicks = 0;
      await expect(async () => {
        if ((await box.inputValue()) !== '') {
          clicks += 1;
          await button.click({ timeout: 2_000 });
        }
        await expect(box).toHaveValue('', { timeout: 1_000 });
      }).toPass({ timeout: COMPOSER_WAIT_MS });
      if (clicks > 1) this.clicksAgain.push(this.sent + 1);
      this.sent += 1;
      await page.waitForTimeout(PACE_MS);
    }
  }

  /** Waits until this member has handed `more` further messages to the composer. */
  async sendsMore(more: number): Promise<void> {
    const target = this.sent + more;
    await expect.poll(() => this.sent, { timeout: COMPOSER_WAIT_MS }).toBeGreaterThanOrEqual(target);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** The numbers of `from`'s notes in `page`'s conversation, one entry per stored message shown, sorted. */
async function notesShown(page: Page, from: string): Promise<number[]> {
  // Text content, not inner text: the rows out of view are not rendered (content-visibility: auto).
  const rows = await conversationLog(page).locator('[data-message-id]').allTextContents();
  const pattern = new RegExp(`Note (\\d+) from ${from}\\b`);
  return rows
    .flatMap((row) => {
      const n = pattern.exec(row)?.[1];
      return n === undefined ? [] : [Number(n)];
    })
    .sort((a, b) => a - b);
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The procedure's steps for one instance: SIGTERM and wait for the exit (the drain), start it again on its port, wait until it is ready. */
async function restart(instance: EnclaveServer): Promise<void> {
  await instance.stop();
  await instance.start();
  await expect
    .poll(() =>
      fetch(`${instance.url}${routes.ready.path}`).then(
        (r) => r.status,
        () => 0,
      ),
    )
    .toBe(200);
}

test('a rolling restart of both instances behind nginx loses no message and fails no send', async ({ network, cluster }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const senders = [new Sender(alice), new Sender(bob)] as const;
  const [first, second] = cluster.instances;

  for (const s of senders) s.start();
  await test.step('both members send before the restart', async () => {
    for (const s of senders) await s.sendsMore(3);
  });

  const marks: number[][] = [];
  await test.step('the first instance is restarted while both keep sending', async () => {
    marks.push(senders.map((s) => s.sent));
    await restart(first);
  });
  await test.step('then, as soon as it is ready, the second', async () => {
    marks.push(senders.map((s) => s.sent));
    await restart(second);
    marks.push(senders.map((s) => s.sent));
  });
  await test.step('both members keep sending after the restart', async () => {
    for (const s of senders) await s.sendsMore(3);
  });
  for (const s of senders) await s.stop();
  console.log(
    senders
      .map(
        (s) =>
          `${s.member.username}: ${s.sent} messages (at the restarts: ${marks.map((m) => m[senders.indexOf(s)]).join(', ')}), ${s.socketsOpened} socket(s) reopened, answers ≥ 500: ${s.serverErrors.join(', ') || 'none'}, clicked again: ${s.clicksAgain.join(', ') || 'none'}`,
      )
      .join('\n'),
  );

  await test.step('every send ended stored: none is "Not sent", none failed', async () => {
    for (const s of senders) {
      const log = conversationLog(s.member.page);
      await expect(log.locator('[data-outgoing="sending"]')).toHaveCount(0, { timeout: 30_000 });
      await expect(log.locator('[data-outgoing="failed"]'), `${s.member.username}'s messages not sent`).toHaveCount(0);
      expect(s.failures, `${s.member.username}'s failed sends`).toEqual([]);
      expect(await notesShown(s.member.page, s.member.username), `${s.member.username}'s own messages, stored`).toEqual(oneToN(s.sent));
    }
  });

  await test.step('each member shows every message of the other exactly once: no gap, no duplicate', async () => {
    for (const [from, to] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      const sent = senders.find((s) => s.member === from)!.sent;
      await expect
        .poll(() => notesShown(to.page, from.username), { message: `${from.username}'s messages as ${to.username} sees them` })
        .toEqual(oneToN(sent));
    }
  });

  senders.forEach((s, i) => {
    // Messages were written between the first SIGTERM and the second instance's readiness, not only around them.
    expect(marks[2]![i], `${s.member.username}'s messages during the restarts`).toBeGreaterThan(marks[0]![i]!);
    // The member's socket was closed by a restart (both instances were, and the sockets were on them).
    expect(s.socketsOpened, `${s.member.username}'s sockets reopened`).toBeGreaterThan(0);
  });
  await shot(bob.page, '01-bob-after-rolling-restart');
  await shot(alice.page, '02-alice-after-rolling-restart');
  // nginx logs each refused connection it passed on to the other instance; it never ran out of instances.
  const nginxLog = cluster.nginx.errorLog();
  const otherErrors = nginxLog.split('\n').filter((line) => line.includes('[error]') && !line.includes('Connection refused'));
  console.log(
    `refused connections nginx passed on: ${nginxLog.match(/Connection refused/g)?.length ?? 0}; its other errors: ${otherErrors.join('\n') || 'none'}`,
  );
  expect(nginxLog).not.toMatch(/no live upstreams/);
});
