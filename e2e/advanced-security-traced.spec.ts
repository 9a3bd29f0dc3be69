/**
 * Every figure of /advanced-security traced to the rows it comes from. A network lives a little
 * (members talk, one is banned while online, one's own client reports a breach and is wiped, an
 * address guesses tokens and probes a decoy, another is blocked and keeps knocking, the creator
 * shuts the network down); the creator freezes the Command Center with Pause and notes every tile,
 * counter, event and block it shows; then the server is stopped and each figure is computed again
 * from its database.
 */
import { randomBytes } from 'node:crypto';
import { limits, routes, severityScores } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { fromAddress, openCommandCenter, region, tile, WITHIN_A_POLL } from './support/advanced-security';
import { memberIsGone } from './support/creator-console';
import { readDatabase } from './support/database';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('advanced-security-traced');

/** Documentation-range addresses (RFC 5737), only ever written into X-Forwarded-For. */
const GUESSER = '203.0.113.30';
const BLOCKED = '203.0.113.31';

test.use({ serverEnv: { TRUST_PROXY: '1', BREACH_POLICY: 'wipe' } });

/** What the Command Center shows, read off the screen. */
async function readScreen(page: Page) {
  const text = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';
  const sources = (await page.getByText(/^Network \d+ \(events of the last hour\) \+ this browser \d+/).textContent()) ?? '';
  const [, network, browser] = /^Network (\d+) .* this browser (\d+)/.exec(sources) ?? [];
  const obfuscation = page.locator('[data-obfuscation]');
  return {
    tiles: Object.fromEntries(
      await Promise.all(
        ['Active Threats', 'Blocked IPs', 'Deobfuscation', 'Obfuscation', 'Emergency'].map(
          async (l) => [l, await text(`[data-stat="${l}"]`)] as const,
        ),
      ),
    ),
    summary: Object.fromEntries(
      await Promise.all(
        (['total', 'critical', 'high', 'medium', 'low'] as const).map(
          async (k) => [k, Number(await text(`[data-summary="${k}"]`))] as const,
        ),
      ),
    ),
    networkScore: Number(network),
    browserScore: Number(browser),
    threatLevel: Number(await page.getByRole('progressbar', { name: 'Threat level' }).getAttribute('aria-valuenow')),
    protection: await text('[data-protection-level]'),
    underAttack: await page.getByText('SECURITY ALERT: System Under Attack').isVisible(),
    emergencyAlert: await page.getByText('Emergency mode is active. All non-essential services have been restricted.').isVisible(),
    accuracy: await text('[data-figure="Detection accuracy"]'),
    responseTime: await text('[data-figure="Response time"]'),
    countermeasures: await page
      .locator('[data-countermeasure]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-countermeasure'))),
    vectors: await page.locator('li[data-vector]').evaluateAll((els) =>
      els.map((e) => ({
        type: e.getAttribute('data-vector'),
        origin: e.getAttribute('data-origin'),
        source: e.querySelector('[data-source]')?.textContent ?? null,
      })),
    ),
    events: await page.locator('li[data-event-id]').evaluateAll((els) =>
      els.map((e) => ({
        id: Number(e.getAttribute('data-event-id')),
        type: e.getAttribute('data-event-type'),
        severity: e.querySelector('[data-severity]')?.textContent?.toLowerCase(),
        count: Number(e.querySelector('[data-count]')?.getAttribute('data-count') ?? 1),
        clientIP: e.querySelector('[data-ip="client"]')?.textContent ?? null,
      })),
    ),
    obfuscationBlocks: await obfuscation.count(),
    obfuscationInEvents: await page.locator('li[data-event-id] [data-obfuscation]').count(),
    obfuscation: Object.fromEntries(
      await obfuscation
        .locator('[data-obfuscation-figure]')
        .evaluateAll((els) => els.map((e) => [e.getAttribute('data-obfuscation-figure'), e.textContent])),
    ),
    blocked: await page.locator('[data-blocked-ip]').evaluateAll((els) =>
      els.map((e) => ({
        ip: e.getAttribute('data-blocked-ip'),
        reason: e.querySelector('[data-col="reason"]')?.textContent,
        hits: Number(e.querySelector('[data-col="hits"]')?.textContent),
      })),
    ),
    featuresRunning: await page.locator('[data-feature]').evaluateAll((els) => els.map((e) => e.getAttribute('data-running') === 'true')),
  };
}

test('every tile, counter and event of the Command Center is in the database', async ({ network, playwright }) => {
  const api = network.creatorApi;
  const page = await network.newCreatorPage();
  await openCommandCenter(page);
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const carol = await network.join('carol');

  await test.step('members talk; one is banned while online', async () => {
    await alice.page.getByLabel('Message', { exact: true }).fill('hello from alice');
    await alice.page.getByLabel('Message', { exact: true }).press('Enter');
    await expectToast(alice.page, 'Message Sent');
    await page.getByRole('link', { name: 'Back to Control Panel' }).click();
    await page.getByRole('button', { name: 'Ban bob', exact: true }).click();
    await expectToast(page, 'User Banned');
    await memberIsGone(bob);
  });

  await test.step("carol's own client reports a breach: wiped, and marked compromised for the others", async () => {
    const res = await carol.page.request.post(routes.breachReport.path, {
      data: {
        reason: 'Native function modified',
        timestamp: new Date().toISOString(),
        threatVectors: [
          {
            type: 'function_integrity_violation',
            severity: 'critical',
            description: 'fetch was replaced',
            timestamp: new Date().toISOString(),
          },
        ],
        securityMetrics: { threatLevel: 15, detections: 1 },
      },
    });
    expect(await res.json()).toEqual({ policy: 'wipe', action: 'wiped' });
    await memberIsGone(carol);
    const list = alice.page.getByRole('complementary', { name: 'Members' });
    const carolEntry = list.getByRole('button', { name: /carol/ });
    await expect(carolEntry.locator('[data-compromised]')).toHaveText('Compromised');
    // Her socket was closed with the wipe: she goes offline too.
    await expect(carolEntry).toContainText('Offline');
    await shot(alice.page, '01-chat-compromised-member');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.locator('[data-member="carol"] [data-member-compromised]')).toHaveText('Compromised');
    await expect(page.locator('[data-member="bob"] [data-member-state="banned"]')).toBeVisible();
  });

  await test.step('an address guesses tokens and probes a decoy; another is blocked and keeps knocking', async () => {
    const guesser = await fromAddress(playwright, network.server, GUESSER);
    for (let i = 0; i <= limits.loginAttempts; i++)
      await guesser.post(routes.login.path, { data: { loginKey: randomBytes(32).toString('hex') } });
    expect((await guesser.get('/api/decoy/backup.sql')).status()).toBe(200);
    expect((await api.post(routes.blockIp.path, { data: { ip: BLOCKED, reason: 'Scanner' } })).status()).toBe(200);
    const blocked = await fromAddress(playwright, network.server, BLOCKED);
    expect((await blocked.get('/')).status()).toBe(403);
    expect((await blocked.head(routes.health.path)).status()).toBe(403);
    await Promise.all([guesser.dispose(), blocked.dispose()]);
  });

  await test.step('the creator shuts the network down', async () => {
    expect((await api.post(routes.emergencyShutdown.path)).status()).toBe(200);
    await memberIsGone(alice);
  });

  const shown = await test.step('the Command Center, frozen with Pause', async () => {
    await page.getByRole('link', { name: 'Advanced Security' }).click();
    await expect(tile(page, 'Emergency')).toHaveText('ACTIVE', { timeout: WITHIN_A_POLL });
    await expect(page.locator(`[data-blocked-ip="${BLOCKED}"] [data-col="hits"]`)).toHaveText('2', { timeout: WITHIN_A_POLL });
    // One more poll after the last change, then nothing moves.
    await page.waitForTimeout(WITHIN_A_POLL);
    await region(page, 'Live Security Events').getByRole('button', { name: 'Pause' }).click();
    await page.waitForTimeout(500);
    await shot(page, '02-command-center');
    return readScreen(page);
  });

  await test.step('every figure traces to the database', async () => {
    await network.close();
    await readDatabase(network.server, async (db) => {
      const rows = async <T>(sql: string) => (await db.query<T>(sql)).rows;
      const one = async <T>(sql: string) => (await rows<T>(sql))[0]!;
      // A coalesced row stands for `count` events (server/src/security/events.ts); audit entries
      // (an actor acting) are records, counted in no threat figure.
      const n = `coalesce((details->>'count')::int, 1)`;
      const threats = (window: string) => `actor is null and created_at > now() - interval '${window}'`;

      // This browser's detector found nothing here, so the network's figures are the whole figures.
      expect(shown.browserScore).toBe(0);

      const bySeverity = await rows<{ severity: keyof typeof severityScores; n: number }>(
        `select severity, sum(${n})::int as n from security_events where ${threats('24 hours')} group by severity`,
      );
      const counts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };
      for (const r of bySeverity) {
        counts[r.severity] = r.n;
        counts.total += r.n;
      }
      expect(shown.summary).toEqual(counts);
      expect(counts.critical).toBeGreaterThanOrEqual(1);

      const score = `sum((case severity when 'low' then ${severityScores.low} when 'medium' then ${severityScores.medium} when 'high' then ${severityScores.high} else ${severityScores.critical} end) * ${n})::int`;
      const hour = await one<{ score: number; active: number }>(
        `select coalesce(${score}, 0) as score, coalesce(sum(${n}) filter (where severity in ('high', 'critical')), 0)::int as active
           from security_events where ${threats('1 hour')}`,
      );
      expect(shown.networkScore).toBe(hour.score);
      expect(shown.threatLevel).toBe(Math.min(100, hour.score));
      expect(shown.underAttack).toBe(hour.score > 50);
      expect(shown.protection).toBe(hour.score < 10 ? 'MINIMAL' : hour.score < 30 ? 'STANDARD' : hour.score < 60 ? 'ENHANCED' : 'MILITARY');
      expect(shown.tiles['Active Threats']).toBe(String(hour.active));

      const blocks = await rows<{ ip: string; reason: string; hits: number }>(
        `select ip, reason, hits from blocked_ips where expires_at is null or expires_at > now() order by created_at`,
      );
      expect(shown.tiles['Blocked IPs']).toBe(String(blocks.length));
      expect(shown.blocked).toEqual(blocks);
      expect(blocks).toEqual([{ ip: BLOCKED, reason: 'Scanner', hits: 2 }]);

      const ofType = async (type: string) =>
        (
          await one<{ n: number }>(
            `select coalesce(sum(${n}), 0)::int as n from security_events where type = '${type}' and ${threats('24 hours')}`,
          )
        ).n;
      expect(shown.tiles['Deobfuscation']).toBe(String(await ofType('breach_report')));
      const decoyHits = await ofType('decoy_hit');
      const decoyRoutes = Object.values(routes).filter((r) => r.path.startsWith('/api/decoy/')).length;
      // The network's obfuscation figures, shown once for the page, none on an event's card.
      expect(shown.obfuscationBlocks).toBe(1);
      expect(shown.obfuscationInEvents).toBe(0);
      expect(decoyHits).toBe(1);
      expect(shown.obfuscation['Decoys']).toBe(`1 hit on ${decoyRoutes} endpoints`);
      const epochs = await one<{ n: number }>(`select count(*)::int as n from epochs where created_at > now() - interval '24 hours'`);
      expect(shown.obfuscation['Dynamic Keys']).toBe(String(epochs.n));
      const messages = await one<{ n: number }>(`select count(*)::int as n from messages where created_at > now() - interval '24 hours'`);
      expect(messages.n).toBe(1);
      expect(shown.obfuscation['Polymorphic']).toBe(messages.n > 0 ? 'ACTIVE' : 'INACTIVE');
      // AES-GCM content and RSA-OAEP-wrapped sender keys; no TLS on this plain-HTTP test server.
      expect(shown.obfuscation['Layers']).toBe('2');
      expect(shown.tiles['Obfuscation']).toBe('ENHANCED');

      const emergency = await rows<{ value: string }>(`select value from settings where key = 'emergency_since'`);
      expect(emergency).toHaveLength(1);
      expect(shown.tiles['Emergency']).toBe('ACTIVE');
      expect(shown.emergencyAlert).toBe(true);

      // Response time: the median ms from a ban to its sockets closing (bob's ban, the shutdown's).
      const timings = (
        await rows<{ ms: number }>(
          `select (details->>'socketsClosedMs')::float as ms from security_events
            where type in ('member_banned', 'emergency_shutdown') and details ? 'socketsClosedMs' and created_at > now() - interval '7 days'`,
        )
      )
        .map((r) => r.ms)
        .sort((a, b) => a - b);
      expect(timings).toHaveLength(2);
      // Interpolated as percentile_cont does (a + (b - a) / 2): (a + b) / 2 can round the other way at .5.
      const median = timings[0]! + (timings[1]! - timings[0]!) * 0.5;
      expect(shown.responseTime).toBe(`${Math.round(median)} ms`);

      const rateLimited = await one<{ n: number }>(
        `select coalesce(sum(${n}), 0)::int as n from security_events where type = 'rate_limit' and ${threats('1 hour')}`,
      );
      const expectedMeasures = [
        rateLimited.n > 0 ? 'rate_limiting' : null,
        blocks.length > 0 ? 'ip_blocking' : null,
        emergency.length > 0 ? 'emergency_lockdown' : null,
        decoyHits > 0 ? 'decoy_endpoints' : null,
        'breach_policy_wipe',
      ].filter((m) => m !== null);
      expect(shown.countermeasures).toEqual(expectedMeasures);

      // The live events: the 50 latest rows, newest first, each with its severity, count and address.
      const latest = await rows<{
        id: number;
        type: string;
        severity: string;
        count: number;
        ip: string | null;
        actor: string | null;
        last_seen: Date;
      }>(
        `select id, type, severity, ${n} as count, ip, actor, date_trunc('milliseconds', coalesce((details->>'lastSeen')::timestamptz, created_at)) as last_seen
           from security_events order by id desc limit 50`,
      );
      expect(latest.length).toBeLessThan(50);
      expect(shown.events).toEqual(
        latest.map((r) => ({ id: Number(r.id), type: r.type, severity: r.severity, count: r.count, clientIP: r.ip })),
      );

      // Recent Threat Vectors: the ten latest threats (audit entries left out), by last occurrence.
      const vectors = latest
        .filter((r) => r.actor === null)
        .sort((a, b) => new Date(b.last_seen).getTime() - new Date(a.last_seen).getTime())
        .slice(0, 10)
        .map((r) => ({ type: r.type, origin: 'network', source: r.ip }));
      expect(shown.vectors).toEqual(vectors);

      // This browser's own figures: the detector's coverage is shown only once its checks ran.
      const running = shown.featuresRunning.every(Boolean);
      expect(shown.featuresRunning.every((f) => f === running)).toBe(true);
      if (!running) expect(['—', '0.0%']).toContain(shown.accuracy);
    });
  });
});
