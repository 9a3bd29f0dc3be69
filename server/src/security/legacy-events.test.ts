/**
 * Security events stored before the monitor recorded reported addresses read in today's shape:
 * nothing made up for what the old row did not hold.
 */
import { routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { securityEvents } from '../db/schema';
import { backends, creatorHeaders } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe.each(backends)('security events of an earlier shape (%s)', (backend) => {
  const suite = oneInstance(backend);
  const live = async () => (await new TestMember.Anonymous(suite.server.url).call(routes.liveEvents, {}, creatorHeaders)).events;

  it('maps a row written before reported addresses existed to the new shape, with no address made up', async () => {
    await suite.database.db.insert(securityEvents).values({
      type: 'login_failed',
      severity: 'medium',
      ip: '203.0.113.5',
      ipAnalysis: { clientIP: '203.0.113.5', forwardedFor: [], classification: 'public', headers: { 'user-agent': 'old' } },
    });
    await suite.database.db.insert(securityEvents).values({ type: 'emergency_lifted', severity: 'high', actor: 'creator' });
    const [serverSide, legacy] = await live();
    expect(legacy!.ipAnalysis).toEqual({
      clientIP: '203.0.113.5',
      forwardedFor: [],
      classification: 'public',
      localNetworkIP: null,
      publicIP: null,
      webrtcIPs: [],
      headers: { 'user-agent': 'old' },
    });
    expect(serverSide!.ipAnalysis).toEqual({
      clientIP: null,
      forwardedFor: [],
      classification: 'unknown',
      localNetworkIP: null,
      publicIP: null,
      webrtcIPs: [],
      headers: {},
    });
  });
});
