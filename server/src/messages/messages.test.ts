import { routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { messages } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/**
 * Each `it` signs up its own Alice and Bob (and whoever else it needs): a member reads the general
 * channel from the moment they joined, so nothing another test sent shows in their history.
 */
describe.each(backends)('end-to-end encrypted messaging (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });

  const join = async (name: string) => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    return TestMember.join(suite.server.url, key!, name);
  };
  /** Two new members for one test, named after it. */
  const pair = async (tag: string) => ({ alice: await join(`alice-${tag}`), bob: await join(`bob-${tag}`) });

  it('delivers channel messages readable by every member, signed by their sender', async () => {
    const { alice, bob } = await pair('channel');
    expect((await alice.send('all', 'hello channel 👋')).status).toBe(201);
    expect((await bob.send('all', 'hi alice')).status).toBe(201);
    for (const reader of [alice, bob]) {
      const read = await reader.decrypt(await reader.history('all'));
      expect(read.map((m) => m.text)).toEqual(['hello channel 👋', 'hi alice']);
      expect(read.map((m) => m.senderId)).toEqual([alice.id, bob.id]);
    }
  });

  it('lets a member who joins later read the channel from then on, and nothing before', async () => {
    const { alice, bob } = await pair('later');
    await alice.send('all', 'before carol');
    const carol = await join('carol-later');
    // Alice's epoch was made for the old member set: the server refuses it, she rotates and resends.
    expect((await alice.send('all', 'welcome carol')).status).toBe(201);
    expect((await carol.send('all', 'thanks')).status).toBe(201);

    const carolSees = await carol.decrypt(await carol.history('all'));
    expect(carolSees.map((m) => m.text)).toEqual(['welcome carol', 'thanks']);

    // Even handed the earlier ciphertext directly, Carol holds no key for it.
    const everything = await alice.history('all');
    const before = everything.filter((m) => m.id < carolSees[0]!.id);
    expect(before.length).toBeGreaterThan(0);
    expect((await carol.decrypt(before)).every((m) => m.text === null)).toBe(true);
    // Alice and Bob still read all of it.
    expect((await bob.decrypt(everything)).every((m) => m.text !== null)).toBe(true);
  });

  it('keeps a direct message readable by its two members only', async () => {
    const { alice, bob } = await pair('dm');
    const eve = await join('eve-dm');
    expect((await alice.send(bob.id, 'just for bob')).status).toBe(201);
    const forBob = await bob.decrypt(await bob.history(alice.id));
    expect(forBob.map((m) => m.text)).toEqual(['just for bob']);
    expect((await alice.decrypt(await alice.history(bob.id))).map((m) => m.text)).toEqual(['just for bob']);

    // Eve cannot even list it: her DM with Alice is another conversation.
    expect(await eve.history(alice.id)).toEqual([]);
    // Handed the ciphertext, she has no share of its epoch.
    const dm = await alice.history(bob.id);
    expect((await eve.decrypt(dm)).map((m) => m.text)).toEqual([null]);
    const shares = await eve.call(routes.epochShares, { query: { ids: dm[0]!.epochId } });
    expect(shares).toEqual({ shares: [] });
  });

  it('stores only ciphertext: the raw rows do not contain the text', async () => {
    const { alice, bob } = await pair('raw');
    await alice.send(bob.id, 'the raw database must not show this');
    const rows = await suite.database.db.select().from(messages);
    expect(JSON.stringify(rows)).not.toContain('the raw database must not show this');
    expect(JSON.stringify(rows)).not.toContain(Buffer.from('the raw database').toString('base64').slice(0, 12));
  });

  it('refuses a replayed message', async () => {
    const { alice } = await pair('replay');
    await alice.send('all', 'once only');
    const [last] = (await alice.history('all')).filter((m) => m.senderId === alice.id).slice(-1);
    const replay = await alice.attempt(routes.sendMessage, {
      body: {
        receiverId: 'all',
        epochId: last!.epochId,
        index: last!.index,
        encryptedContent: last!.encryptedContent,
        messageType: 'text',
      },
    });
    expect(replay.status).toBe(409);
    expect(replay.error).toMatchObject({ code: 'replay' });
  });

  it("refuses a message on someone else's epoch", async () => {
    const { alice, bob } = await pair('foreign');
    expect((await alice.send('all', 'on my own epoch')).status).toBe(201);
    const [last] = (await alice.history('all')).filter((m) => m.senderId === alice.id).slice(-1);
    const res = await bob.attempt(routes.sendMessage, {
      body: {
        receiverId: 'all',
        epochId: last!.epochId,
        index: 99,
        encryptedContent: last!.encryptedContent,
        messageType: 'text',
      },
    });
    expect(res.status).toBe(400);
  });

  it('refuses an epoch whose shares leave out a member', async () => {
    // Bob is the member Alice's shares leave out.
    const { alice } = await pair('epoch');
    const { membershipVersion } = await alice.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    const res = await alice.attempt(routes.createEpoch, {
      body: {
        epochId: crypto.randomUUID(),
        receiverId: 'all',
        membershipVersion,
        shares: [{ recipientId: alice.id, wrappedKey: 'A'.repeat(344), signature: 'A'.repeat(88) }],
      },
    });
    expect(res.status).toBe(409);
    expect(res.error).toMatchObject({ code: 'membership_changed' });
  });

  it('pages history backwards and catches up forwards without gaps or duplicates', async () => {
    const { alice, bob } = await pair('pages');
    const sent: string[] = [];
    for (let i = 0; i < 7; i++) {
      sent.push(`page ${i}`);
      await bob.send(alice.id, `page ${i}`);
    }
    const newest = await alice.history(bob.id, { limit: 3 });
    const older = await alice.history(bob.id, { limit: 3, before: newest[0]!.id });
    const catchUp = await alice.history(bob.id, { after: older[0]!.id });
    expect(newest.map((m) => m.id)).toEqual([...newest.map((m) => m.id)].sort((a, b) => a - b));
    const ids = [...older, ...newest].map((m) => m.id);
    expect(new Set(ids).size).toBe(6);
    expect(catchUp.map((m) => m.id)).toEqual(ids.slice(1));
    const texts = (await alice.decrypt(await alice.history(bob.id))).map((m) => m.text);
    expect(texts.slice(-7)).toEqual(sent);
  });
});
