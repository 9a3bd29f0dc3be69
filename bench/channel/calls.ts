/**
 * What the channel bench's real members ask of the server, seen from the client: every request of
 * a watched `TestMember` with its start, its answer's time, its status and its body's size. The
 * member's own `request` is wrapped, so the member's client (MemberClient) runs unchanged.
 */
import { performance } from 'node:perf_hooks';
import { fetchedMemberList, type CallRoute, type MemberList } from '@enclave/client';
import { routes, type ChannelKeyState, type RouteDefinition, type UploadChannelShares, type UserListResponse } from '@enclave/protocol';
import type { TestMember } from '../../server/src/testing/member';

/** One request: times are `performance.now()` of this process, in ms. */
export type Call = {
  member: string;
  method: string;
  /** The path without its query. */
  path: string;
  start: number;
  /** NaN until answered. */
  end: number;
  /** 0 when no answer came. */
  status: number;
  requestBytes: number;
  /** An upload of shares: the channel epoch it is of, and how many it carries. */
  upload?: { epochId: string; shares: number };
  /** A key state answered: how many members it listed as still to be wrapped for. */
  pending?: number;
};

/** The routes the bench picks out of the log. */
export const paths = {
  state: routes.channelKey.path,
  claim: routes.claimChannelEpoch.path,
  shares: routes.uploadChannelShares.path,
  activate: routes.activateChannelEpoch.path,
  senderEpoch: routes.createSenderEpoch.path,
  users: routes.users.path,
  send: routes.sendMessage.path,
};

export class CallLog {
  readonly calls: Call[] = [];

  /** Records every request `member` makes from now on, under `label`. */
  watch(member: TestMember, label: string): void {
    const request = member.request.bind(member);
    member.request = async (method, path, body, headers) => {
      // Serialised here once, so that its size is the body sent; the member sends the string as it is.
      const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
      const call: Call = {
        member: label,
        method,
        path: path.split('?')[0] ?? path,
        start: performance.now(),
        end: Number.NaN,
        status: 0,
        requestBytes: payload === undefined ? 0 : Buffer.byteLength(payload),
      };
      if (call.path === paths.shares) call.upload = uploadOf(body);
      this.calls.push(call);
      try {
        const reply = await request(method, path, payload, headers);
        call.status = reply.status;
        if (call.path === paths.state && reply.status === 200) call.pending = (reply.body as ChannelKeyState).pending.length;
        return reply;
      } finally {
        call.end = performance.now();
      }
    };
  }

  /** The uploads of shares of `epochId` answered 200, by anyone. */
  uploadsOf(epochId: string): Call[] {
    return this.calls.filter((c) => c.upload?.epochId === epochId && c.status === 200);
  }

  /** The calls to `path` (each route the bench reads has one method) that started within [from, to], of `member` if given. */
  of(path: string, from = -Infinity, to = Infinity, member?: string): Call[] {
    return this.calls.filter((c) => c.path === path && c.start >= from && c.start <= to && (member === undefined || c.member === member));
  }
}

const names: Record<string, string> = {
  [paths.state]: 'key state',
  [paths.claim]: 'claim',
  [paths.shares]: 'uploads',
  [paths.activate]: 'activation',
  [paths.senderEpoch]: 'sender epoch',
  [paths.users]: 'member list',
  [paths.send]: 'message',
};

/** "key state 3× 1,234 ms, claim 1× 12 ms, …": these calls' time by route, in the order first called. */
export function byRoute(calls: readonly Call[], format: (ms: number) => string): string {
  const totals = new Map<string, { n: number; ms: number }>();
  for (const c of calls) {
    const name = names[c.path] ?? c.path;
    const t = totals.get(name) ?? { n: 0, ms: 0 };
    totals.set(name, { n: t.n + 1, ms: t.ms + (c.end - c.start) });
  }
  return [...totals].map(([name, t]) => `${name} ${t.n}× ${format(t.ms)}`).join(', ');
}

function uploadOf(body: unknown): Call['upload'] {
  const { header, shares } = body as UploadChannelShares;
  return { epochId: header.epochId, shares: shares.length };
}

/** Time covered by these calls, overlaps counted once. */
export function busyMs(calls: readonly Call[]): number {
  const spans = calls.map((c) => [c.start, c.end] as const).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = [Number.NaN, Number.NaN];
  for (const [start, end] of spans) {
    if (!(start <= to)) {
      if (to > from) total += to - from;
      [from, to] = [start, end];
    } else if (end > to) to = end;
  }
  if (to > from) total += to - from;
  return total;
}

/** One fetch of the member list: how long the call took, parsing included, and how many members it held. */
export type ListFetch = { start: number; ms: number; members: number };

/** The member list all the real members share, with each fetch of the whole list timed. */
export type SharedMemberList = MemberList & { readonly fetches: ListFetch[] };

/**
 * One member list for all the real members, fetched by one of them (as bench/load/members.ts
 * shares it: N lists of N members would outgrow the client), with each fetch of it timed.
 */
export function sharedMemberList(fetcher: () => TestMember): SharedMemberList {
  const fetches: ListFetch[] = [];
  const call: CallRoute = async (route, input) => {
    const start = performance.now();
    const answer = await fetcher().call(route, input);
    if ((route as RouteDefinition) === routes.users)
      fetches.push({ start, ms: performance.now() - start, members: (answer as UserListResponse).users.length });
    return answer;
  };
  return { ...fetchedMemberList(call), fetches };
}
