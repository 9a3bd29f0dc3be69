/** Bob reacts to Alice's message; she sees the count live; Bob takes it back and it goes for her too. */
import { expectAccessible } from './support/a11y';
import { rowAction, rowOf, sendFromComposer } from './support/annotations';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('react-to-a-message');

test('a reaction and its removal, seen by the other member', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  await sendFromComposer(alice.page, 'Lunch at noon?');
  await expect(rowOf(bob.page, 'Lunch at noon?')).toHaveCount(1);

  await rowAction(bob.page, 'Lunch at noon?', 'React');
  await bob.page.getByRole('group', { name: 'Choose a reaction' }).getByRole('button', { name: 'React with 👍' }).click();
  await expect(rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: '👍 1, including you' })).toBeVisible();
  const aliceChip = rowOf(alice.page, 'Lunch at noon?').getByRole('button', { name: '👍 1', exact: true });
  await expect(aliceChip).toBeVisible();
  // Alice adds hers: two, hers included.
  await aliceChip.click();
  await expect(rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: '👍 2, including you' })).toBeVisible();
  await expect(rowOf(alice.page, 'Lunch at noon?').getByRole('button', { name: '👍 2, including you' })).toBeVisible();
  await shot(alice.page, 'two-reactions');
  await expectAccessible(alice.page);

  // Bob takes his back: Alice's stays alone.
  await rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: '👍 2, including you' }).click();
  await expect(rowOf(alice.page, 'Lunch at noon?').getByRole('button', { name: '👍 1, including you' })).toBeVisible();
  await expect(rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: '👍 1', exact: true })).toBeVisible();
  // And after a reload, the same.
  await bob.page.reload();
  await expect(rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: '👍 1', exact: true })).toBeVisible();
  // Alice removes hers: no chip is left, and the removal left no "deleted" note.
  await rowOf(alice.page, 'Lunch at noon?').getByRole('button', { name: '👍 1, including you' }).click();
  await expect(rowOf(bob.page, 'Lunch at noon?').getByRole('button', { name: /👍/ })).toHaveCount(0);
  await expect(bob.page.getByText(/deleted/)).toHaveCount(0);
});
