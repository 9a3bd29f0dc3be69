/**
 * Web Push end to end: a browser's subscription (keys made here as a browser makes them) is kept
 * for its member's session; a message to a member with no socket open reaches a local push
 * service as a VAPID-signed aes128gcm push that carries nothing about the message; logout, a ban
 * and a 410 end the subscription; endpoints outside the allowlist are refused.
 */
import { errorCodes, PUSH_SUBSCRIPTIONS_PER_MEMBER, routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { pushSubscriptions, sessions } from '../db/schema';
import { sweepEndedSubscriptions } from './subscriptions';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { TestPushService, verifyVapid, type TestBrowser } from '../testing/push-service';

const service = await TestPushService.start();
afterAll(() => service.close());

describe.each(backends)('Web Push (%s)', (backend) => {
  // The look-ups of whom to push, as the database sees them.
  let lookUps = 0;
  const suite = oneInstance(backend, {
    config: { rateLimits: relaxedRateLimits, pushEndpointAllow: [service.origin], pushEndpointCa: service.caFile },
    onQuery: (query) => {
      if (/from "push_subscriptions" inner join "sessions"/.test(query)) lookUps += 1;
    },
  });
  let n = 0;
  // Each test its own members: a member is pushed at most once per 30 s.
  const pair = () => suite.members(`pushed${++n}`, `sender${n}`);
  const subscribe = async (member: TestMember, browser: TestBrowser) =>
    expect(await member.call(routes.pushSubscribe, { body: browser.subscription })).toEqual({ ok: true });
  const rowsOf = (browser: TestBrowser) =>
    suite.database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, browser.endpoint));

  it('pushes a VAPID-signed, encrypted push that says nothing about the message to a member with no socket', async () => {
    const [alice, bob] = await pair();
    const { publicKey } = await alice.call(routes.pushKey, {});
    // An uncompressed P-256 point, the browser's applicationServerKey.
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    const browser = service.browser();
    await subscribe(alice, browser);

    const text = 'meet at the north gate at nine';
    const sent = await bob.send(alice.id, text);
    const push = await service.firstPush(browser.endpoint);

    const claims = verifyVapid(push.headers.authorization as string, publicKey, service.origin);
    expect(claims.sub).toMatch(/^(mailto:|https:)/);
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.ttl).toBe(String(24 * 60 * 60));
    expect(push.headers.urgency).toBe('normal');
    const plaintext = browser.decrypt(push.body).toString('utf8');
    expect(JSON.parse(plaintext)).toEqual({ type: 'new_message' });
    const message = sent.body!.message;
    for (const secret of [text, alice.user.username, bob.user.username, alice.id, bob.id, message.conversationId, String(message.id)])
      expect(plaintext).not.toContain(secret);
    // The same key for every caller, across the network.
    expect(await bob.call(routes.pushKey, {})).toEqual({ publicKey });
  });

  it('pushes nobody who has a socket open', async () => {
    const [online, bob] = await pair();
    const [offline] = await suite.members(`offline${n}`);
    const [onlineBrowser, offlineBrowser] = [service.browser(), service.browser()];
    await subscribe(online, onlineBrowser);
    await subscribe(offline!, offlineBrowser);
    const socket = await online.connect();
    // Presence is written within a tick of the socket opening: wait until the server counts it.
    await vi.waitFor(async () => expect((await bob.call(routes.users, {})).users.find((u) => u.id === online.id)?.online).toBe(true));
    await bob.send(online.id, 'you are here');
    await bob.send(offline!.id, 'you are away');
    // Look-ups run in order: once the second message's push arrived, the first was decided.
    await service.firstPush(offlineBrowser.endpoint);
    expect(service.pushesTo(onlineBrowser.endpoint)).toEqual([]);
    socket.close();
  });

  it('ends the subscription at logout and at a ban, and pushes it no more', async () => {
    const [alice, bob] = await pair();
    const [carol] = await suite.members(`banned${n}`);
    const [aliceBrowser, carolBrowser] = [service.browser(), service.browser()];
    await subscribe(alice, aliceBrowser);
    await subscribe(carol!, carolBrowser);
    expect(await rowsOf(aliceBrowser)).toHaveLength(1);

    expect(await alice.call(routes.logout, {})).toEqual({ ok: true });
    expect(await rowsOf(aliceBrowser)).toEqual([]);
    const creator = new TestMember.Anonymous(suite.server.url);
    await creator.call(routes.creatorBan, { body: { userId: carol!.id, reason: 'spam' } }, creatorHeaders);
    expect(await rowsOf(carolBrowser)).toEqual([]);

    // A third member, subscribed, is pushed after both: neither of the ended ones was.
    const [dave] = await suite.members(`witness${n}`);
    const daveBrowser = service.browser();
    await subscribe(dave!, daveBrowser);
    await bob.send(alice.id, 'after logout');
    await bob.send(dave!.id, 'a witness');
    await service.firstPush(daveBrowser.endpoint);
    expect(service.pushesTo(aliceBrowser.endpoint)).toEqual([]);
    expect(service.pushesTo(carolBrowser.endpoint)).toEqual([]);
  });

  it('ends the subscriptions of sessions revoked from the device list', async () => {
    const [alice] = await pair();
    const browser = service.browser();
    await subscribe(alice, browser);
    await alice.call(routes.revokeAllSessions, {});
    expect(await rowsOf(browser)).toEqual([]);
  });

  it('sweeps the subscriptions of expired sessions, and pushes none meanwhile', async () => {
    const [alice, bob] = await pair();
    const [expiredBrowser, liveBrowser] = [service.browser(), service.browser()];
    await subscribe(alice, expiredBrowser);
    const [row] = await rowsOf(expiredBrowser);
    await suite.database.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.id, row!.sessionId));
    const [carol] = await suite.members(`live${n}`);
    await subscribe(carol!, liveBrowser);
    await bob.send(alice.id, 'to an expired session');
    await bob.send(carol!.id, 'to a live one');
    await service.firstPush(liveBrowser.endpoint);
    expect(service.pushesTo(expiredBrowser.endpoint)).toEqual([]);
    expect(await sweepEndedSubscriptions(suite.database.db)).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(expiredBrowser)).toEqual([]);
    expect(await rowsOf(liveBrowser)).toHaveLength(1);
  });

  it('pushes each member at most once per 30 s however many messages, the general channel too', async () => {
    const [alice, bob] = await pair();
    const [carol] = await suite.members(`channel${n}`);
    const [aliceBrowser, carolBrowser] = [service.browser(), service.browser()];
    await subscribe(alice, aliceBrowser);
    await subscribe(carol!, carolBrowser);
    await bob.send('all', 'one for everyone');
    await Promise.all([service.firstPush(aliceBrowser.endpoint), service.firstPush(carolBrowser.endpoint)]);
    await bob.send('all', 'another for everyone');
    await bob.send(alice.id, 'and one for alice');
    // Look-ups run in order: once a later member's push arrived, the two messages before were decided.
    const [dave] = await suite.members(`later${n}`);
    const daveBrowser = service.browser();
    await subscribe(dave!, daveBrowser);
    await bob.send(dave!.id, 'after the others');
    await service.firstPush(daveBrowser.endpoint);
    expect(service.pushesTo(aliceBrowser.endpoint)).toHaveLength(1);
    expect(service.pushesTo(carolBrowser.endpoint)).toHaveLength(1);
  });

  it('looks up the messages of a conversation stored together once, and pushes each of two senders about the other', async () => {
    const [alice, bob] = await pair();
    const [carol] = await suite.members(`together${n}`);
    const browsers = [service.browser(), service.browser(), service.browser()] as const;
    for (const [i, member] of [alice, bob, carol!].entries()) await subscribe(member, browsers[i]!);
    const before = lookUps;
    const sent = 10;
    await Promise.all(Array.from({ length: sent }, (_, i) => (i % 2 ? bob : carol!).send('all', `together ${i}`)));
    // Nobody has a socket: each is pushed, the two senders too (each wrote to the other), once.
    await Promise.all(browsers.map((b) => service.firstPush(b.endpoint)));
    for (const b of browsers) expect(service.pushesTo(b.endpoint)).toHaveLength(1);
    // Sent at once, the ten messages share their look-ups (one, unless the machine spread them
    // over more than one wait of PUSH_LOOKUP_DELAY_MS).
    expect(lookUps - before).toBeGreaterThan(0);
    expect(lookUps - before).toBeLessThan(sent);
  });

  it("pushes a group's members, and nobody outside it", async () => {
    const [alice, bob] = await pair();
    const [outsider, marker] = await suite.members(`outsider${n}`, `marker${n}`);
    const [aliceBrowser, outsiderBrowser, markerBrowser] = [service.browser(), service.browser(), service.browser()];
    await subscribe(alice, aliceBrowser);
    await subscribe(outsider!, outsiderBrowser);
    await subscribe(marker!, markerBrowser);
    const group = await bob.client.groups.create('Pushed', [alice.id]);
    await bob.send(group.id, 'for the group');
    await service.firstPush(aliceBrowser.endpoint);
    // Look-ups run in order: once a later message's push arrived, the group's was decided.
    await bob.send(marker!.id, 'after the group');
    await service.firstPush(markerBrowser.endpoint);
    expect(service.pushesTo(outsiderBrowser.endpoint)).toEqual([]);
  });

  it('deletes a subscription the push service answers 410 for', async () => {
    const [alice, bob] = await pair();
    const browser = service.browser();
    service.statusFor.set(new URL(browser.endpoint).pathname, 410);
    await subscribe(alice, browser);
    await bob.send(alice.id, 'into the void');
    await service.firstPush(browser.endpoint);
    await vi.waitFor(async () => expect(await rowsOf(browser)).toEqual([]));
  });

  it('refuses endpoints outside the allowlist, and malformed keys', async () => {
    const [alice] = await pair();
    const good = service.browser().subscription;
    for (const endpoint of [
      'https://169.254.169.254/latest/meta-data',
      'https://evil.example/fcm.googleapis.com',
      'https://fcm.googleapis.com:8443/x',
    ]) {
      const out = await alice.attempt(routes.pushSubscribe, { body: { ...good, endpoint } });
      expect(out.status).toBe(400);
      expect(out.error).toMatchObject({ code: errorCodes.invalidRequest, error: expect.stringMatching(/known push service/) });
    }
    const bad = [
      { ...good, endpoint: `http://${new URL(service.origin).host}/push/x` },
      { ...good, endpoint: `${service.origin}/${'a'.repeat(1_000)}` },
      { ...good, keys: { ...good.keys, p256dh: good.keys.p256dh.slice(1) } },
      { ...good, keys: { ...good.keys, p256dh: `A${good.keys.p256dh.slice(1)}` } },
      { ...good, keys: { ...good.keys, auth: `${good.keys.auth}AA` } },
      { ...good, keys: { ...good.keys, auth: good.keys.auth.replace(/^./, '+') } },
    ];
    for (const body of bad) expect((await alice.attempt(routes.pushSubscribe, { body })).status).toBe(400);
    expect(await suite.database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, alice.id))).toEqual([]);
  });

  it(`keeps at most ${PUSH_SUBSCRIPTIONS_PER_MEMBER} subscriptions per member, dropping the oldest`, async () => {
    const [alice] = await pair();
    const browsers = Array.from({ length: PUSH_SUBSCRIPTIONS_PER_MEMBER + 2 }, () => service.browser());
    for (const b of browsers) await subscribe(alice, b);
    const kept = await suite.database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, alice.id));
    expect(kept.map((r) => r.endpoint).sort()).toEqual(
      browsers
        .slice(2)
        .map((b) => b.endpoint)
        .sort(),
    );
    // Unsubscribing forgets one; another member's endpoint is not theirs to forget.
    expect(await alice.call(routes.pushUnsubscribe, { body: { endpoint: browsers[2]!.endpoint } })).toEqual({ ok: true });
    expect(await rowsOf(browsers[2]!)).toEqual([]);
  });
});
