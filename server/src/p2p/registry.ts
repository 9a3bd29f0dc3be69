/**
 * The P2P node registry, in the database so that every instance sees it. A node is online exactly
 * while its host has a socket on some instance (realtime/presence.ts); nothing else is kept of its
 * liveness. A connection holds one of its node's slots while its joiner is online, and counts in
 * `currentConnections` once the host has answered it (signaling.ts marks it 'open').
 */
import { errorCodes, type P2pNode } from '@enclave/protocol';
import { and, eq, inArray, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { inGoodStanding } from '../auth/sessions';
import type { Db } from '../db/client';
import { p2pConnections, p2pNodes, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { onlineUserIds } from '../realtime/presence';

/**
 * `column = ANY($1)`: the whole list as one parameter, since a ban may name every member at once
 * (the emergency shutdown) and PostgreSQL takes at most 65,535 parameters per statement.
 */
const anyUser = (column: SQLWrapper, ids: readonly string[]): SQL => sql`${column} = ANY(${sql.param(ids)}::uuid[])`;

/** A connection and its two parties. */
export type P2pConnection = { id: string; nodeId: string; hostId: string; joinerId: string; status: 'pending' | 'open' };

const connectionColumns = {
  id: p2pConnections.id,
  nodeId: p2pConnections.nodeId,
  hostId: p2pNodes.hostId,
  joinerId: p2pConnections.joinerId,
  status: p2pConnections.status,
};

/** Every node with its host's presence and the open connections of joiners online now. */
export async function listNodes(db: Db, only?: { hostId: string }): Promise<P2pNode[]> {
  const nodes = await db
    .select({ node: p2pNodes, hostUsername: users.username })
    .from(p2pNodes)
    .innerJoin(users, eq(users.id, p2pNodes.hostId))
    // A banned, locked or wiped host's node is removed with the ban or the breach policy's action
    // (users/moderation.ts, security/breach.ts); this keeps one hosted meanwhile out of sight too.
    .where(and(inGoodStanding(), only ? eq(p2pNodes.hostId, only.hostId) : undefined))
    .orderBy(p2pNodes.createdAt);
  if (!nodes.length) return [];
  const online = await onlineUserIds(db);
  const open = await db
    .select({ nodeId: p2pConnections.nodeId, joinerId: p2pConnections.joinerId })
    .from(p2pConnections)
    .where(
      and(
        eq(p2pConnections.status, 'open'),
        inArray(
          p2pConnections.nodeId,
          nodes.map((n) => n.node.id),
        ),
      ),
    );
  return nodes.map(({ node, hostUsername }) => {
    const up = online.has(node.hostId);
    return {
      id: node.id,
      hostId: node.hostId,
      hostUsername,
      nodeType: node.nodeType,
      capabilities: node.capabilities,
      maxConnections: node.maxConnections,
      // An offline host holds no connection, whatever rows remain until they are closed.
      currentConnections: up ? open.filter((c) => c.nodeId === node.id && online.has(c.joinerId)).length : 0,
      location: node.location,
      status: up ? 'online' : 'offline',
      ipAddress: node.ipAddress,
      port: null,
      createdAt: node.createdAt.toISOString(),
    };
  });
}

/** Creates or updates the host's one node. `ipAddress`: null unless the host publishes it. */
export async function upsertNode(
  db: Db,
  hostId: string,
  node: { capabilities: string[]; maxConnections: number; location: string; ipAddress: string | null },
): Promise<void> {
  await db
    .insert(p2pNodes)
    .values({ hostId, nodeType: 'community_host', ...node })
    .onConflictDoUpdate({ target: p2pNodes.hostId, set: node });
}

/**
 * Removes the nodes these members host and, with `joined`, the connections they joined elsewhere
 * (a ban); returns every connection that ended, for its parties to be told.
 */
export async function removeP2pOf(db: Db, userIds: readonly string[], opts: { joined: boolean }): Promise<P2pConnection[]> {
  if (!userIds.length) return [];
  const ids = [...userIds];
  return db.transaction(async (tx) => {
    const ended = await tx
      .select(connectionColumns)
      .from(p2pConnections)
      .innerJoin(p2pNodes, eq(p2pNodes.id, p2pConnections.nodeId))
      .where(opts.joined ? or(anyUser(p2pNodes.hostId, ids), anyUser(p2pConnections.joinerId, ids)) : anyUser(p2pNodes.hostId, ids));
    if (opts.joined) await tx.delete(p2pConnections).where(anyUser(p2pConnections.joinerId, ids));
    // Their nodes' connections go with them (ON DELETE CASCADE).
    await tx.delete(p2pNodes).where(anyUser(p2pNodes.hostId, ids));
    return ended;
  });
}

/**
 * A new connection of `joinerId` to a node, replacing the joiner's previous one to it (returned as
 * `replaced`). The node's row is locked, so concurrent joiners cannot both take its last slot.
 */
export async function openConnection(
  db: Db,
  nodeId: string,
  joinerId: string,
): Promise<{ connection: P2pConnection; replaced: P2pConnection | null }> {
  return db.transaction(async (tx) => {
    const [node] = await tx
      .select({ id: p2pNodes.id, hostId: p2pNodes.hostId, maxConnections: p2pNodes.maxConnections })
      .from(p2pNodes)
      .innerJoin(users, eq(users.id, p2pNodes.hostId))
      .where(and(eq(p2pNodes.id, nodeId), inGoodStanding()))
      .for('update', { of: p2pNodes });
    if (!node) throw new HttpError(404, errorCodes.notFound, 'No such node');
    if (node.hostId === joinerId) throw new HttpError(409, errorCodes.invalidRequest, 'You cannot connect to your own node');
    const online = await onlineUserIds(tx);
    if (!online.has(node.hostId)) throw new HttpError(409, errorCodes.nodeOffline, 'This node is offline: its host is not connected');
    const existing = await tx
      .select(connectionColumns)
      .from(p2pConnections)
      .innerJoin(p2pNodes, eq(p2pNodes.id, p2pConnections.nodeId))
      .where(eq(p2pConnections.nodeId, nodeId));
    const replaced = existing.find((c) => c.joinerId === joinerId) ?? null;
    // A slot is held by each other joiner who is online; a joiner gone without closing frees theirs.
    const taken = existing.filter((c) => c.joinerId !== joinerId && online.has(c.joinerId)).length;
    if (taken >= node.maxConnections) {
      throw new HttpError(409, errorCodes.nodeFull, `This node is full: it accepts at most ${node.maxConnections} connections`);
    }
    if (replaced) await tx.delete(p2pConnections).where(eq(p2pConnections.id, replaced.id));
    const [row] = await tx.insert(p2pConnections).values({ nodeId, joinerId }).returning({ id: p2pConnections.id });
    return { connection: { id: row!.id, nodeId, hostId: node.hostId, joinerId, status: 'pending' }, replaced };
  });
}

export async function findConnection(db: Db, id: string): Promise<P2pConnection | null> {
  const [row] = await db
    .select(connectionColumns)
    .from(p2pConnections)
    .innerJoin(p2pNodes, eq(p2pNodes.id, p2pConnections.nodeId))
    .where(eq(p2pConnections.id, id));
  return row ?? null;
}

/** The host accepted: from now the connection counts. False when it was already open. */
export async function markOpen(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(p2pConnections)
    .set({ status: 'open' })
    .where(and(eq(p2pConnections.id, id), eq(p2pConnections.status, 'pending')))
    .returning({ id: p2pConnections.id });
  return rows.length > 0;
}

/** False when it was already gone. */
export async function closeConnection(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(p2pConnections).where(eq(p2pConnections.id, id)).returning({ id: p2pConnections.id });
  return rows.length > 0;
}
