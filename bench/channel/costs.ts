/**
 * 5. What the channel's keys and messages take in the database after the removal, per message
 * sent; 6. what a member's client pays at this size before it can wrap for everyone: the member
 * list, and the trust checks of every member before a wrap (KeyTrust.checkShareRecipients: listed,
 * fingerprinted, pinned; their share keys' signatures are checked by the wrap), measured apart
 * from the run's clients with a KeyTrust of its own, first cold and then again warm.
 */
import { performance } from 'node:perf_hooks';
import { KeyTrust, MemoryPinStore } from '@enclave/client';
import { fingerprint, importPublicIdentity } from '@enclave/crypto';
import { limits, routes, type PublicUser } from '@enclave/protocol';
import type { RealMember } from './members';
import type { Bench } from './context';
import { bytes, count, ms } from './report';

const TABLES = ['channel_shares', 'channel_wraps', 'channel_epochs', 'epochs', 'messages'];

export async function storage(b: Bench): Promise<void> {
  const phase = '5. storage';
  const { rows: sizes } = await b.db.query<{ name: string; size: string }>(
    'SELECT t AS name, pg_total_relation_size(t::regclass) AS size FROM unnest($1::text[]) AS t',
    [TABLES],
  );
  const { rows: counts } = await b.db.query<{ messages: number; shares: number; members: number }>(
    `SELECT (SELECT count(*)::int FROM messages) AS messages, (SELECT count(*)::int FROM channel_shares) AS shares,
            (SELECT count(*)::int FROM users) AS members`,
  );
  const { messages, shares, members } = counts[0]!;
  const size = (name: string) => Number(sizes.find((s) => s.name === name)?.size ?? 0);
  const total = TABLES.reduce((sum, t) => sum + size(t), 0);
  b.rows.push(
    {
      phase,
      figure: `${TABLES.join(' + ')} (pg_total_relation_size)`,
      value: `${bytes(total)}: ${TABLES.map((t) => bytes(size(t))).join(' + ')}`,
    },
    { phase, figure: 'messages stored', value: count(messages) },
    { phase, figure: 'per message', value: bytes(total / messages) },
    {
      phase,
      figure: 'channel_shares: per share row; per member (both keys)',
      value: `${bytes(size('channel_shares') / shares)} (${count(shares)} rows); ${bytes(size('channel_shares') / members)} (${count(members)} members)`,
    },
  );
}

export async function clientCosts(b: Bench, newcomer: RealMember): Promise<void> {
  const phase = "6. a client's costs";
  b.options.progress(`${phase}: the member list and every member's trust checks, cold then warm`);
  const { member } = newcomer;
  const fetchStart = performance.now();
  const res = await fetch(b.server.url + routes.users.path, { headers: member.socketTarget().headers });
  const text = await res.text();
  const fetched = performance.now();
  const json: unknown = JSON.parse(text);
  const parsed = performance.now();
  const { users } = routes.users.response.parse(json);
  const checked = performance.now();

  const trust = new KeyTrust({
    self: { id: member.id, ...member.identity.publicIdentity },
    pins: new MemoryPinStore(),
    members: {
      current: async (): Promise<readonly PublicUser[]> => users,
      fresh: async (): Promise<readonly PublicUser[]> => users,
      including: async () => users,
    },
    crypto: { fingerprint, importPublicIdentity },
  });
  const { rows: listed } = await b.db.query<{ id: string; key: string; signature: string }>(
    `SELECT id, share_public_key AS key, share_key_signature AS signature FROM users
     WHERE NOT is_banned AND NOT is_compromised AND share_public_key IS NOT NULL AND id <> $1`,
    [member.id],
  );
  const pending = listed.map((r) => ({ id: r.id, shareKey: { sharePublicKey: r.key, signature: r.signature } }));
  // In pages as the key state hands them out.
  const checkAll = async () => {
    const start = performance.now();
    for (let i = 0; i < pending.length; i += limits.channelSharesPerUpload) {
      await trust.checkShareRecipients(pending.slice(i, i + limits.channelSharesPerUpload));
    }
    return performance.now() - start;
  };
  const cold = await checkAll();
  const warm = await checkAll();
  const perMember = (total: number) => `${ms(total)} (${((total * 1000) / pending.length).toFixed(0)} µs a member)`;
  b.rows.push(
    {
      phase,
      figure: 'member list (GET /api/users/all): body; fetch; JSON.parse; schema check',
      value: `${bytes(Buffer.byteLength(text))}, ${count(users.length)} members; ${ms(fetched - fetchStart)}; ${ms(parsed - fetched)}; ${ms(checked - parsed)}`,
    },
    {
      phase,
      figure: `trust checks of ${count(pending.length)} members, cold (listed, fingerprinted, pinned on first sight)`,
      value: perMember(cold),
    },
    { phase, figure: 'the same again, warm (pinned already)', value: perMember(warm) },
    { phase, figure: 'load client heap after (all real members, the list, this check)', value: bytes(process.memoryUsage().heapUsed) },
  );
}
