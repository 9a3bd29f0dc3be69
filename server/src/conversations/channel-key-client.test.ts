/**
 * Members' own clients (@enclave/client's MemberClient, as the web app runs it) on the general
 * channel's key: a join costs the senders no rotation, only one share for the newcomer; a creator's
 * ban is followed by a re-key made by an online member's client, with no share for the banned;
 * concurrent senders after a removal converge on one key; and epochs wrapped per sender before
 * the switch stay readable beside the derived ones.
 */
import { routes, type Message, type RouteDefinition } from '@enclave/protocol';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { channelShares, epochs, epochShares, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { sharesFor } from './routes';

describe.each(backends)("members' clients on the channel's key (%s)", (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const db = () => suite.database.db;
  const creator = () => new TestMember.Anonymous(suite.server.url);
  const keyInForce = async (m: TestMember) => (await m.call(routes.channelKey, {})).epoch?.id ?? null;
  const sent = async (m: TestMember, text: string): Promise<Message> => {
    const reply = await m.send('all', text);
    expect(reply.status).toBe(201);
    return reply.body!.message;
  };
  /**
   * What `reader` opens of these messages with only the shares the server holds for them, and their
   * real keys; the member list as `lister` gets it (a banned reader can no longer ask).
   */
  const readsWithOwnShares = async (reader: TestMember, messages: Message[], lister = reader) =>
    (
      await reader.decrypt(messages, {
        shares: await sharesFor(db(), reader.id, [...new Set(messages.map((m) => m.epochId))]),
        users: (await lister.call(routes.users, {})).users,
      })
    ).map((m) => m.text);
  /** Polls until `check` holds: the test's own timeout bounds it. */
  const eventually = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  it('costs the senders no rotation when a member joins: one share for the newcomer, who reads from the join on', async () => {
    const [alice, bob] = await suite.members('alice', 'bob');
    const early = [await sent(alice, 'before carol'), await sent(bob, 'before carol too')];
    const count = async () => ({
      channel: (await db().select().from(channelShares)).length,
      wrapped: (await db().select().from(epochShares)).length,
    });
    const before = await count();

    const [carol] = await suite.members('carol');
    const late = [await sent(alice, 'after carol'), await sent(bob, 'after carol too')];
    // One share more, Carol's, wrapped by the first sender; no chain key wrapped for anyone.
    expect(await count()).toEqual({ channel: before.channel + 1, wrapped: before.wrapped });
    const [carolsShare] = await db().select().from(channelShares).where(eq(channelShares.recipientId, carol!.id));
    expect(carolsShare).toBeDefined();

    expect(await readsWithOwnShares(carol!, [...early, ...late])).toEqual([null, null, 'after carol', 'after carol too']);
    expect(await readsWithOwnShares(alice, late)).toEqual(['after carol', 'after carol too']);
  });

  it("follows a creator's ban with a re-key by an online member's client; the banned member reads nothing sent after", async () => {
    const [alice, bob, dave] = await suite.members('alice2', 'bob2', 'dave');
    await sent(dave, 'dave can still send');
    const old = await keyInForce(alice);
    expect(old).not.toBeNull();
    // Alice's and Bob's clients are online; nobody sends after the ban.
    void alice.client;
    void bob.client;
    const sockets = await Promise.all([alice.connect(), bob.connect()]);

    await creator().call(routes.creatorBan, { body: { userId: dave!.id, reason: 'leaked' } }, creatorHeaders);
    await eventually(async () => ![null, old].includes(await keyInForce(alice)));
    const next = (await keyInForce(bob))!;
    const holders = (await db().select().from(channelShares).where(eq(channelShares.channelEpochId, next))).map((r) => r.recipientId);
    expect(holders).toEqual(expect.arrayContaining([alice.id, bob.id]));
    expect(holders).not.toContain(dave!.id);

    const after = await sent(bob, 'after the ban');
    expect(await readsWithOwnShares(alice, [after])).toEqual(['after the ban']);
    expect(await readsWithOwnShares(dave!, [after], alice)).toEqual([null]);
    for (const s of sockets) s.close();
  });

  it('lets sends go on once the most recently signed-in members hold a new key; the others read what was sent meanwhile when their share arrives', async () => {
    const [judy, hank, ivy] = await suite.members('judy', 'hank', 'ivy');
    const [removed] = await suite.members('removed2');
    // Judy signed in longest ago of all, so the re-key reaches her after the others.
    await db()
      .update(users)
      .set({ lastActivity: new Date('2000-01-01T00:00:00Z') })
      .where(eq(users.id, judy!.id));
    hank.wrapBeforeForce = 1;
    await sent(ivy, 'before');
    // Hank's background wrap, after his key takes force, waits until the test lets it go.
    let activated = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const attempt = hank.attempt.bind(hank);
    hank.attempt = (async (route, input) => {
      const called = route as RouteDefinition;
      if (called === routes.uploadChannelShares && activated) await held;
      const outcome = await attempt(route, input);
      if (called === routes.activateChannelEpoch) activated = true;
      return outcome;
    }) as typeof hank.attempt;

    await creator().call(routes.creatorBan, { body: { userId: removed!.id, reason: 'spam' } }, creatorHeaders);
    const during = [await sent(hank, 'during the wrap'), await sent(ivy, 'ivy too')];
    const judySocket = await judy.connect();
    // Judy's share is on its way: her client reads nothing yet, and says it may later.
    expect((await judy.decrypt(during)).map((m) => m.text)).toEqual([null, null]);
    release();
    await judySocket.waitFor((f) => f.type === 'channel_share');
    expect((await judy.decrypt(during)).map((m) => m.text)).toEqual(['during the wrap', 'ivy too']);
    await eventually(async () => (await hank.call(routes.channelKey, {})).rekey === null);
    expect(await readsWithOwnShares(removed!, during, judy)).toEqual([null, null]);
    judySocket.close();
  });

  it('lets concurrent senders after a removal converge on one key', async () => {
    const senders = await suite.members('erin', 'frank', 'grace');
    const [removed] = await suite.members('removed');
    await sent(senders[0]!, 'before');
    await creator().call(routes.creatorBan, { body: { userId: removed!.id, reason: 'spam' } }, creatorHeaders);
    expect(await keyInForce(senders[0]!)).toBeNull();

    const messages = await Promise.all(senders.map((m, i) => sent(m, `at once ${i}`)));
    const used = await db()
      .select({ channelEpochId: epochs.channelEpochId })
      .from(epochs)
      .where(
        inArray(
          epochs.id,
          messages.map((m) => m.epochId),
        ),
      );
    expect(new Set(used.map((e) => e.channelEpochId))).toEqual(new Set([await keyInForce(senders[1]!)]));
    expect(await readsWithOwnShares(senders[2]!, messages)).toEqual(['at once 0', 'at once 1', 'at once 2']);
  });

  it('keeps epochs wrapped per sender (a session from before share keys) readable beside the derived ones', async () => {
    const [key] = await mintKeys(db(), { count: 1 });
    const legacy = await TestMember.join(suite.server.url, key!, 'legacy', [], { withoutShareKey: true });
    const [modern] = await suite.members('modern');
    const wrapped = await sent(legacy, 'wrapped for every member');
    const derived = await sent(modern!, 'derived from the key');
    expect(await db().select().from(epochShares).where(eq(epochShares.epochId, wrapped.epochId))).not.toEqual([]);
    expect(await db().select().from(epochShares).where(eq(epochShares.epochId, derived.epochId))).toEqual([]);

    expect(await readsWithOwnShares(modern!, [wrapped, derived])).toEqual(['wrapped for every member', 'derived from the key']);
    // The old session has no share key: the derived message waits for its next sign-in.
    expect(await readsWithOwnShares(legacy, [wrapped, derived])).toEqual(['wrapped for every member', null]);
  });
});
