/**
 * The P2P network (docs/architecture.md §P2P): members host nodes others connect to over WebRTC.
 * The server keeps the node registry and relays signaling between the two parties of a connection;
 * what then flows between them never crosses the server.
 */
import { z } from 'zod';
import { isoDate, userIdSchema } from './primitives';

/** A host accepts at most this many joiners (docs/spec.md §9). */
export const P2P_MAX_CONNECTIONS = 50;
/** An SDP offer or answer, as text. */
export const P2P_SDP_MAX_CHARS = 16 * 1024;

/** A node's id, assigned by the server. */
export const p2pNodeIdSchema = z.uuid({ message: 'must be a node id' }).toLowerCase();
/** A connection's id, assigned by `POST /api/p2p/connect/:id`; signaling frames name it. */
export const p2pConnectionIdSchema = z.uuid({ message: 'must be a connection id' }).toLowerCase();

/**
 * One node. `status` is 'online' exactly while its host has a socket open on some instance (the
 * presence table); a host without one is listed 'offline' and cannot be joined.
 * `currentConnections`: joiners whose connection the host accepted (its `answer` relayed) and not
 * closed since. `ipAddress` is null unless the host chose to publish it (then the address the
 * server saw); `port` is always null: the server never sees the port a peer connection will use.
 */
export const p2pNodeSchema = z.object({
  id: p2pNodeIdSchema,
  hostId: userIdSchema,
  hostUsername: z.string(),
  nodeType: z.literal('community_host'),
  capabilities: z.array(z.string()),
  maxConnections: z.number().int(),
  currentConnections: z.number().int(),
  location: z.string(),
  status: z.enum(['online', 'offline']),
  ipAddress: z.string().nullable(),
  port: z.number().int().nullable(),
  createdAt: isoDate,
});
/** One node of the registry. */
export type P2pNode = z.infer<typeof p2pNodeSchema>;
/** `GET /api/p2p/nodes`: every hosted node, online or not. */
export const p2pNodesResponseSchema = z.object({ nodes: z.array(p2pNodeSchema) });

/**
 * `POST /api/p2p/host`: starts or updates the caller's node (one per member), at most 50 joiners
 * (docs/spec.md §9).
 */
export const p2pHostRequestSchema = z.strictObject({
  nodeType: z.literal('community_host'),
  capabilities: z.array(z.string().regex(/^[a-z0-9_-]{1,32}$/, 'must be a short lower-case name')).max(8),
  maxConnections: z.number().int().min(1).max(P2P_MAX_CONNECTIONS),
  /** A label the host types ("Berlin", "home lab"); never derived from their address. */
  location: z.string().trim().min(1, 'Please enter a location label').max(64),
  /** Show other members the address the server saw for this host. */
  publishAddress: z.boolean().default(false),
});
/** The caller's node as it is now. */
export const p2pHostResponseSchema = z.object({ node: p2pNodeSchema });
/** `POST /api/p2p/connect/:id`: the node to join. */
export const p2pConnectParamsSchema = z.strictObject({ id: p2pNodeIdSchema });
/** The new `pending` connection: its id, the node and the host to signal to. */
export const p2pConnectResponseSchema = z.object({ connectionId: p2pConnectionIdSchema, nodeId: p2pNodeIdSchema, hostId: userIdSchema });

/**
 * What RTCPeerConnection takes as `iceServers` (config ICE_SERVERS). TURN servers carry a
 * short-lived credential minted for the caller when the server shares a secret with them
 * (TURN_SECRET); `expiresAt` says when those credentials end (null: none handed out).
 */
export const p2pConfigResponseSchema = z.object({
  iceServers: z.array(z.object({ urls: z.string(), username: z.string().optional(), credential: z.string().optional() })),
  expiresAt: isoDate.nullable(),
});
/** The answer of `GET /api/p2p/config`. */
export type P2pConfigResponse = z.infer<typeof p2pConfigResponseSchema>;

/** An ICE candidate as RTCIceCandidate.toJSON() writes it. */
export const iceCandidateSchema = z.strictObject({
  candidate: z.string().max(1024),
  sdpMid: z.string().max(64).nullable().optional(),
  sdpMLineIndex: z.number().int().min(0).max(1024).nullable().optional(),
  usernameFragment: z.string().max(256).nullable().optional(),
});

/** Signaling: an SDP offer or answer as text, or an ICE candidate. */
export const p2pSignalSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('offer'), payload: z.string().min(1).max(P2P_SDP_MAX_CHARS) }),
  z.strictObject({ kind: z.literal('answer'), payload: z.string().min(1).max(P2P_SDP_MAX_CHARS) }),
  z.strictObject({ kind: z.literal('ice'), payload: iceCandidateSchema }),
]);
