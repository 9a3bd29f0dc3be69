/**
 * The network under soak as its people see it: the members, and the creator with the master key,
 * who mints their invite keys and bans and unbans them. Each way of going away returns how the
 * member comes back, if they do.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { routes, type Overview } from '@enclave/protocol';
import { TestMember } from '../../server/src/testing/member';
import { addressGates, SoakMember, type AddressGates } from './members';
import type { ServerProcess } from './server-process';

export type ChurnCounts = {
  /** Joined with an invite key after the load began. */
  joinedDuringLoad: number;
  disconnects: number;
  reconnects: number;
  logouts: number;
  leftForGood: number;
  bans: number;
  unbans: number;
  logins: number;
  /** Logged out when the load was over. */
  leftAtEnd: number;
  /** Of those, members whose socket was open: the server closes it. */
  closedAtEnd: number;
};

/** How a member who went away comes back. */
export type Return = () => Promise<void>;

export class SoakNetwork {
  readonly members: SoakMember[] = [];
  readonly counts: ChurnCounts = {
    joinedDuringLoad: 0,
    disconnects: 0,
    reconnects: 0,
    logouts: 0,
    leftForGood: 0,
    bans: 0,
    unbans: 0,
    logins: 0,
    leftAtEnd: 0,
    closedAtEnd: 0,
  };
  /** Members whose socket the server did not close when it ended their session. */
  readonly unclosed: string[] = [];
  /** Members still shown online 5 s after they went away. */
  readonly stillOnline: string[] = [];
  private readonly creator: InstanceType<typeof TestMember.Anonymous>;
  private readonly creatorAuth: { authorization: string };
  private readonly gates: AddressGates;

  constructor(
    readonly server: ServerProcess,
    masterKey: string,
    rateLimitWindowMs: number,
  ) {
    this.creator = new TestMember.Anonymous(server.url);
    this.creatorAuth = { authorization: `SuperAdmin ${masterKey}` };
    this.gates = addressGates(rateLimitWindowMs);
  }

  openSockets(): number {
    return this.members.filter((m) => m.socket).length;
  }

  overview(): Promise<Overview> {
    return this.creator.call(routes.overview, {}, this.creatorAuth);
  }

  /** A new member: an invite key from the creator, registration, login, socket. */
  async join(steady: boolean): Promise<SoakMember> {
    const { keys } = await this.creator.call(routes.generateKeys, { body: { quantity: 1 } }, this.creatorAuth);
    const key = keys[0]?.key;
    if (!key) throw new Error('no invite key minted');
    const member = await SoakMember.join(this.server.url, key, `soak${this.members.length + 1}`, steady, this.gates);
    this.counts.logins += 1;
    await member.connect();
    this.members.push(member);
    return member;
  }

  /** The member closes their socket and stays signed in. */
  async disconnect(m: SoakMember): Promise<Return> {
    await m.disconnect();
    this.counts.disconnects += 1;
    await this.shownOffline(m);
    return async () => {
      await m.connect();
      this.counts.reconnects += 1;
    };
  }

  /** The member logs out; the server closes their socket. */
  async logout(m: SoakMember, forGood: boolean): Promise<Return | null> {
    await m.logout();
    await this.serverCloses(m, 'logout');
    this.counts.logouts += 1;
    await this.shownOffline(m);
    if (forGood) {
      m.state = 'left';
      this.counts.leftForGood += 1;
      return null;
    }
    return () => this.signInAgain(m);
  }

  /** The creator bans the member; the server closes their socket. They come back unbanned. */
  async ban(m: SoakMember): Promise<Return> {
    await this.creator.call(routes.creatorBan, { body: { userId: m.id, reason: 'soak: banned for a while' } }, this.creatorAuth);
    await this.serverCloses(m, 'ban');
    m.state = 'banned';
    this.counts.bans += 1;
    await this.shownOffline(m);
    return async () => {
      await this.creator.call(routes.creatorUnban, { body: { userId: m.id } }, this.creatorAuth);
      this.counts.unbans += 1;
      await this.signInAgain(m);
    };
  }

  /** Every member still signed in logs out. */
  async leaveAll(): Promise<void> {
    for (const m of this.members) {
      if (m.state !== 'online' && m.state !== 'offline') continue;
      const hadSocket = m.state === 'online';
      await m.logout();
      if (hadSocket) {
        await this.serverCloses(m, 'final logout');
        this.counts.closedAtEnd += 1;
      }
      this.counts.leftAtEnd += 1;
    }
  }

  private async signInAgain(m: SoakMember): Promise<void> {
    await m.signIn(this.gates);
    this.counts.logins += 1;
    await m.connect();
  }

  private async serverCloses(m: SoakMember, why: string): Promise<void> {
    if (!(await m.serverClosesSocket())) this.unclosed.push(`${m.name} (${why})`);
  }

  /** A member who went away is offline for everyone at once, not when the server next sweeps. */
  private async shownOffline(m: SoakMember): Promise<void> {
    for (let i = 0; i < 25; i++) {
      const { users } = await this.creator.call(routes.monitoredUsers, {}, this.creatorAuth);
      if (users.find((u) => u.id === m.id)?.online === false) return;
      await sleep(200);
    }
    this.stillOnline.push(m.name);
  }
}
