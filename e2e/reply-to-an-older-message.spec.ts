/**
 * Alice replies to a message far up the channel's history; Bob, whose screen holds only the
 * newest page, sees the quote of it (fetched on its own), and again after a reload. Clicking the
 * quote where the message is loaded scrolls to it.
 */
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { rowAction, rowOf, sendFromComposer } from './support/annotations';
import { conversationLog, FIRST_PAGE, messageRows, seedChannel } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('reply-to-an-older-message');
const TOTAL = 60;

test('a reply quotes a message that scrolled away, for both members and after a reload', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  await seedChannel(network, TOTAL);
  await network.signIn(alice.page, alice.token);
  await network.signIn(bob.page, bob.token);
  await expect(messageRows(alice.page)).toHaveCount(FIRST_PAGE);

  // Alice scrolls up to the old message and replies to it.
  await conversationLog(alice.page).evaluate((el) => (el.scrollTop = 0));
  await expect(messageRows(alice.page)).toHaveCount(TOTAL);
  await rowAction(alice.page, 'History 3', 'Reply');
  await expect(alice.page.getByRole('status').filter({ hasText: 'Replying to sender3: History 3' })).toBeVisible();
  await sendFromComposer(alice.page, 'Answering the third one');
  await expect(alice.page.getByRole('status').filter({ hasText: 'Replying to' })).toHaveCount(0);

  // Bob holds only the newest page: the quote is fetched, with the sender's name and the line.
  const quote = (page: typeof bob.page) =>
    rowOf(page, 'Answering the third one').getByRole('button', { name: /^Replying to sender3: History 3/ });
  await expect(quote(bob.page)).toBeVisible();
  await expect(messageRows(bob.page).filter({ has: bob.page.getByText('History 3', { exact: true }) })).toHaveCount(0);
  await shot(bob.page, 'bob-sees-the-quote');
  await expectAccessible(bob.page);

  // After a reload too.
  await bob.page.reload();
  await expect(quote(bob.page)).toBeVisible();

  // Where the message is loaded, the quote takes the reader to it.
  await quote(alice.page).click();
  await expect(rowOf(alice.page, 'History 3')).toBeInViewport();
  await expect(rowOf(alice.page, 'History 3')).toBeFocused();

  // At 390 px the row's actions are on screen without hovering, and nothing overflows.
  await bob.page.setViewportSize({ width: 390, height: 844 });
  await expect(rowOf(bob.page, 'Answering the third one').getByRole('button', { name: 'Reply', exact: true })).toBeVisible();
  await expectNoOverflow(bob.page);
  await shot(bob.page, 'bob-390');
});
