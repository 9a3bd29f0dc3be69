/**
 * The soak, short (bench/soak/run.ts; `npm run bench:soak` runs the full 100,000 messages against
 * the production build): 2,000 end-to-end encrypted messages through one server process started
 * from these sources, in the general channel and direct messages, while members join with invite
 * keys, close their sockets, log out, leave for good, and are banned and unbanned by the creator.
 * It checks the invariants, never timings (the timeout only stops a hang: a loaded machine takes minutes): every acknowledged message stored exactly once, the
 * fan-out complete, sampled messages decrypted by their recipients, and sockets, presence and
 * sessions back to nothing once the members have left.
 */
import { describe, expect, it } from 'vitest';
import { runSoak, soakOptions } from '../../bench/soak/run';

describe('soak', () => {
  it('carries 2,000 messages through one server while members come and go, and leaves nothing behind', { timeout: 600_000 }, async () => {
    const report = await runSoak(soakOptions(2000, { entry: 'source', initialMembers: 8, steadyMembers: 3, checkpoints: 3 }));

    expect(report.invariants.filter((i) => !i.ok)).toEqual([]);
    // Every kind of churn happened.
    const { joinedDuringLoad, disconnects, logouts, leftForGood, bans, unbans } = report.members;
    expect(Math.min(joinedDuringLoad, disconnects, logouts, leftForGood, bans, unbans)).toBeGreaterThan(0);
    expect(report.messages.direct).toBeGreaterThan(0);
  });
});
