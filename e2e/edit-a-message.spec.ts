/**
 * Alice edits her message; Bob sees the new text with "edited", live and after a reload. The row
 * with a quote, reactions and the mark is photographed.
 */
import { expectAccessible } from './support/a11y';
import { rowAction, rowOf, sendFromComposer } from './support/annotations';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('edit-a-message');

test('an edit seen by the other member, live and after a reload', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  await sendFromComposer(alice.page, 'See you at 5');
  await expect(rowOf(bob.page, 'See you at 5')).toHaveCount(1);
  // Only one's own messages can be edited.
  await rowOf(bob.page, 'See you at 5').hover();
  await expect(rowOf(bob.page, 'See you at 5').getByRole('button', { name: 'Edit message' })).toHaveCount(0);

  await rowAction(alice.page, 'See you at 5', 'Edit message');
  await expect(alice.page.getByText('Editing message')).toBeVisible();
  const editor = alice.page.getByRole('textbox', { name: 'Edit message' });
  await expect(editor).toHaveValue('See you at 5');
  await editor.fill('See you at 6');
  await editor.press('Enter');
  await expect(rowOf(alice.page, 'See you at 6')).toContainText('edited');

  const edited = rowOf(bob.page, 'See you at 6');
  await expect(edited).toContainText('edited');
  await expect(bob.page.getByText('See you at 5', { exact: true })).toHaveCount(0);

  // Edited again: the latest text wins, for Bob too.
  await rowAction(alice.page, 'See you at 6', 'Edit message');
  await alice.page.getByRole('textbox', { name: 'Edit message' }).fill('See you at 7');
  await alice.page.getByRole('textbox', { name: 'Edit message' }).press('Enter');
  await expect(rowOf(bob.page, 'See you at 7')).toContainText('edited');
  await bob.page.reload();
  await expect(rowOf(bob.page, 'See you at 7')).toContainText('edited');
  await expect(bob.page.getByText(/See you at [56]/)).toHaveCount(0);

  // Bob replies to it and reacts: the reply quotes the edited text.
  await rowAction(bob.page, 'See you at 7', 'Reply');
  await sendFromComposer(bob.page, 'Works for me');
  await rowAction(bob.page, 'See you at 7', 'React');
  await bob.page.getByRole('button', { name: 'React with ❤️' }).click();
  await expect(rowOf(alice.page, 'Works for me').getByRole('button', { name: /^Replying to alice: See you at 7/ })).toBeVisible();
  await expect(rowOf(alice.page, 'See you at 7').getByRole('button', { name: '❤️ 1', exact: true })).toBeVisible();
  await shot(alice.page, 'quote-reaction-edited');
  await expectAccessible(alice.page);
});
