/**
 * Every HTTP route of Enclave, declared once: method, path, who may call it, and the schemas of
 * its body, query, path parameters and answer. The server registers its routes from this table
 * (bodies parsed and answers checked by these schemas), derives its authorization table from it
 * and publishes it as OpenAPI at `/api/openapi.json`; the web app and the test client call routes
 * by these definitions, never by a path written out by hand.
 */
import { z } from 'zod';
import {
  banUserRequestSchema,
  exportKeysQuerySchema,
  generateKeysRequestSchema,
  generateKeysResponseSchema,
  keyListResponseSchema,
  keyStatsSchema,
  revokeKeysRequestSchema,
  revokeKeysResponseSchema,
  setRoleRequestSchema,
  testKeysRequestSchema,
  testKeysResponseSchema,
  unbanUserRequestSchema,
} from './admin';
import {
  accessKeysQuerySchema,
  complianceSchema,
  creatorBanRequestSchema,
  heatmapSchema,
  keyPageResponseSchema,
  liftEmergencyResponseSchema,
  monitoredUsersSchema,
  overviewSchema,
  riskSchema,
  setCreatorAccountRequestSchema,
  shutdownResponseSchema,
  unbanUsersRequestSchema,
  unbanUsersResponseSchema,
} from './creator';
import {
  loginRequestSchema,
  registerRequestSchema,
  registerResponseSchema,
  sessionResponseSchema,
  validateKeyRequestSchema,
  validateKeyResponseSchema,
} from './auth';
import { attachmentParamsSchema, binarySchema, uploadAttachmentQuerySchema, uploadAttachmentResponseSchema } from './attachments';
import {
  conversationMembersQuerySchema,
  conversationMembersResponseSchema,
  createEpochRequestSchema,
  historyQuerySchema,
  historyResponseSchema,
  messageParamsSchema,
  oneMessageResponseSchema,
  sendMessageRequestSchema,
  sendMessageResponseSchema,
  sharesQuerySchema,
  setDisappearingRequestSchema,
  setDisappearingResponseSchema,
  sharesResponseSchema,
} from './messages';
import {
  p2pConfigResponseSchema,
  p2pConnectParamsSchema,
  p2pConnectResponseSchema,
  p2pHostRequestSchema,
  p2pHostResponseSchema,
  p2pNodesResponseSchema,
} from './p2p';
import { limits } from './limits';
import {
  addGroupMembersRequestSchema,
  adminGroupsResponseSchema,
  createGroupRequestSchema,
  groupResponseSchema,
  groupsResponseSchema,
  removeGroupMemberRequestSchema,
} from './groups';
import { pushKeyResponseSchema, pushSubscribeRequestSchema, pushUnsubscribeRequestSchema } from './push';
import { okResponseSchema, shareKeySchema } from './primitives';
import {
  activateChannelEpochSchema,
  channelKeyStateSchema,
  claimChannelEpochSchema,
  createSenderEpochSchema,
  uploadChannelSharesSchema,
} from './channel-keys';
import {
  blockIpRequestSchema,
  blockIpResponseSchema,
  blockedIpsResponseSchema,
  breachReportSchema,
  breachResponseSchema,
  decoyAnyResponseSchema,
  decoyAuthResponseSchema,
  decoyDecryptResponseSchema,
  decoyPathParamsSchema,
  decoyRequestSchema,
  decoyValidateResponseSchema,
  liveEventsResponseSchema,
  mySecurityResponseSchema,
  revokedSessionsResponseSchema,
  securityMetricsSchema,
  sessionParamsSchema,
  sessionsResponseSchema,
  unblockIpRequestSchema,
  unlockUserRequestSchema,
} from './security';
import {
  markReadRequestSchema,
  markReadResponseSchema,
  readPositionQuerySchema,
  readPositionResponseSchema,
  readReceiptsSettingSchema,
  setReadReceiptsRequestSchema,
} from './read-receipts';
import { userListResponseSchema, userLookupRequestSchema } from './users';

/**
 * public: anyone; member: a signed-in member who is not banned; admin: a member with the admin
 * role, or anyone presenting the master key; creator: the master key only
 * (`Authorization: SuperAdmin <key>`).
 */
export type Access = 'public' | 'member' | 'admin' | 'creator';
/** The HTTP methods the API uses. */
export type Method = 'GET' | 'POST' | 'HEAD' | 'DELETE';

/** One route of the table: everything the server needs to register it and a client to call it. */
export type RouteDefinition = {
  readonly method: Method;
  /** Fastify syntax: `:name` for a path parameter, a final `*` for the rest of the path. */
  readonly path: `/api/${string}`;
  readonly access: Access;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  readonly params?: z.ZodType;
  /** Status of a successful answer. */
  readonly status: 200 | 201;
  /** Schema of a successful answer's body (`z.undefined()` when it has none). */
  readonly response: z.ZodType;
  /** Schema of the 503 a route answers of itself: the health check while the instance refuses work, the readiness check while not ready. */
  readonly degraded?: z.ZodType;
  /** An answer that is not JSON (the CSV export, an attachment): sent as it is, never serialized. */
  readonly contentType?: 'text/csv; charset=utf-8' | 'application/octet-stream';
  /** A request body that is not JSON but raw bytes of this type, at most `maxBytes` (an upload). */
  readonly rawBody?: { readonly contentType: 'application/octet-stream'; readonly maxBytes: number };
};

/** What a caller passes for a route: the inputs of its schemas (defaults may be left out). */
export type RouteInput<R extends RouteDefinition> = (R['body'] extends z.ZodType ? { body: z.input<R['body']> } : { body?: undefined }) &
  (R['query'] extends z.ZodType ? { query: z.input<R['query']> } : { query?: undefined }) &
  (R['params'] extends z.ZodType ? { params: z.input<R['params']> } : { params?: undefined });

/** What a handler receives once the server has parsed the request. */
export type ParsedInput<R extends RouteDefinition> = {
  /** A raw body arrives as its bytes, checked by the handler (its type, its size). */
  body: R['body'] extends z.ZodType ? z.output<R['body']> : R['rawBody'] extends object ? unknown : undefined;
  query: R['query'] extends z.ZodType ? z.output<R['query']> : undefined;
  params: R['params'] extends z.ZodType ? z.output<R['params']> : undefined;
};

/** The body of a route's successful answer. */
export type RouteResponse<R extends RouteDefinition> = z.output<R['response']>;

const route = <const R extends RouteDefinition>(definition: R): R => definition;

const noBody = z.undefined();

/** Which server answers: its release (semantic version) and the git commit it was built from ("unknown" when the build did not know it). */
const buildSchema = { version: z.string(), commit: z.string() };
/** The health check's answer while the instance takes work. */
export const healthResponseSchema = z.object({ ok: z.literal(true), ...buildSchema });
/** The health check's answer (503) while the instance refuses work for want of capacity, and a few seconds after. */
export const degradedResponseSchema = z.object({ ok: z.literal(false), status: z.literal('degraded'), ...buildSchema });
/** Why an instance is not ready (GET /api/ready): what it cannot reach, or that it is draining or refusing work. */
export const notReadyReasons = ['database', 'redis', 'draining', 'degraded'] as const;
/** One reason an instance is not ready. */
export type NotReadyReason = (typeof notReadyReasons)[number];
/** The readiness check's answer (503) while any of `notReadyReasons` holds. */
export const notReadyResponseSchema = z.object({
  ok: z.literal(false),
  status: z.literal('not_ready'),
  reasons: z.array(z.enum(notReadyReasons)),
});
const csv = z.string().describe('CSV: key, status, purchase ID, sale price, generated, expires, used, username');
/** The generated OpenAPI document (its shape is OpenAPI's, not ours). */
const openApiDocumentSchema = z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) });

/**
 * The route table: every HTTP route, once (docs/architecture.md §3). The server registers each
 * with `serve()`, clients call them with `call(routes.x, …)`; a route not here does not exist.
 * One route per line, left so by the formatter: the table reads, and diffs, a route at a time.
 */
// prettier-ignore
export const routes = {
  health: route({ method: 'HEAD', path: '/api/health', access: 'public', summary: 'Answers 200 while the server is up and takes work, 503 while it refuses some for want of capacity (degraded)', status: 200, response: noBody, degraded: noBody }),
  healthGet: route({ method: 'GET', path: '/api/health', access: 'public', summary: 'Answers 200 while the server is up and takes work, 503 degraded while it refuses some (for load balancers that only GET); both name the version and commit', status: 200, response: healthResponseSchema, degraded: degradedResponseSchema }),
  ready: route({ method: 'GET', path: '/api/ready', access: 'public', summary: 'Readiness: 200 while the instance reaches its database (and Redis, when configured) and takes work; 503 with the reasons while not, draining or refusing work', status: 200, response: okResponseSchema, degraded: notReadyResponseSchema }),
  openApi: route({ method: 'GET', path: '/api/openapi.json', access: 'public', summary: 'This API as an OpenAPI document', status: 200, response: openApiDocumentSchema }),

  // Invite keys: validation for anyone, administration for admins and the creator.
  validateKey: route({ method: 'POST', path: '/api/keys/validate', access: 'public', summary: 'Says whether an invite key can be redeemed, and why not', body: validateKeyRequestSchema, status: 200, response: validateKeyResponseSchema }),
  keyStats: route({ method: 'GET', path: '/api/admin/key-stats', access: 'admin', summary: 'Key counts, revenue and conversion', status: 200, response: keyStatsSchema }),
  unusedKeys: route({ method: 'GET', path: '/api/admin/unused-keys', access: 'admin', summary: 'The first 20 keys that can still be sold', status: 200, response: keyListResponseSchema }),
  generateKeys: route({ method: 'POST', path: '/api/admin/generate-keys', access: 'admin', summary: 'Creates invite keys for sale (or canary keys)', body: generateKeysRequestSchema, status: 201, response: generateKeysResponseSchema }),
  revokeKeys: route({ method: 'POST', path: '/api/admin/revoke-keys', access: 'admin', summary: 'Revokes unused keys for good', body: revokeKeysRequestSchema, status: 200, response: revokeKeysResponseSchema }),
  revokeActiveKeys: route({ method: 'POST', path: '/api/admin/revoke-active-keys', access: 'creator', summary: 'Revokes every active key at once (unused, unexpired), canaries included', status: 200, response: revokeKeysResponseSchema }),
  exportKeys: route({ method: 'GET', path: '/api/admin/export-keys', access: 'admin', summary: 'The keys of one sale batch (or all available keys) as CSV', query: exportKeysQuerySchema, status: 200, response: csv, contentType: 'text/csv; charset=utf-8' }),
  accessKeys: route({ method: 'GET', path: '/api/admin/access-keys', access: 'creator', summary: 'A page of the key database, canaries included, filtered, oldest first', query: accessKeysQuerySchema, status: 200, response: keyPageResponseSchema }),
  generateTestKeys: route({ method: 'POST', path: '/api/generate-test-keys', access: 'creator', summary: 'Development mode only: 1 or 10 keys for trying the app (404 in production)', body: testKeysRequestSchema, status: 201, response: testKeysResponseSchema }),

  // Accounts and sessions.
  register: route({ method: 'POST', path: '/api/auth/register', access: 'public', summary: 'Redeems an invite key and creates the member', body: registerRequestSchema, status: 201, response: registerResponseSchema }),
  login: route({ method: 'POST', path: '/api/auth/login', access: 'public', summary: 'Signs in with the key derived from the access token; sets the session cookie', body: loginRequestSchema, status: 200, response: sessionResponseSchema }),
  publishShareKey: route({ method: 'POST', path: '/api/auth/share-key', access: 'member', summary: "Publishes the member's share key, once (the same key again changes nothing)", body: shareKeySchema, status: 200, response: okResponseSchema }),
  logout: route({ method: 'POST', path: '/api/auth/logout', access: 'member', summary: "Ends this browser's session and closes its sockets", status: 200, response: okResponseSchema }),
  me: route({ method: 'GET', path: '/api/auth/me', access: 'member', summary: 'The signed-in member and their sealed keys', status: 200, response: sessionResponseSchema }),
  sessions: route({ method: 'GET', path: '/api/auth/sessions', access: 'member', summary: "The signed-in member's active sessions", status: 200, response: sessionsResponseSchema }),
  revokeOtherSessions: route({ method: 'POST', path: '/api/auth/sessions/revoke-others', access: 'member', summary: "Ends the member's other sessions and closes their sockets", status: 200, response: revokedSessionsResponseSchema }),
  revokeSession: route({ method: 'POST', path: '/api/auth/sessions/:id/revoke', access: 'member', summary: "Ends one of the member's sessions (a device) and closes its sockets; another member's session is unknown", params: sessionParamsSchema, status: 200, response: revokedSessionsResponseSchema }),
  revokeAllSessions: route({ method: 'POST', path: '/api/auth/sessions/revoke-all', access: 'member', summary: "Ends every session of the member, this one included (the emergency wipe's server half)", status: 200, response: revokedSessionsResponseSchema }),
  users: route({ method: 'GET', path: '/api/users/all', access: 'member', summary: 'Every member with presence and public keys', status: 200, response: userListResponseSchema }),
  lookupUsers: route({ method: 'POST', path: '/api/users/lookup', access: 'member', summary: 'The members with these ids, as the member list gives them (unknown ids are left out)', body: userLookupRequestSchema, status: 200, response: userListResponseSchema }),

  // Sender keys and messages.
  channelKey: route({ method: 'GET', path: '/api/channel-key', access: 'member', summary: "The general channel's key: the epoch in force, the caller's share, the members still without one, who makes the next", status: 200, response: channelKeyStateSchema }),
  claimChannelEpoch: route({ method: 'POST', path: '/api/channel-key/claim', access: 'member', summary: "Claims the making of the channel's next epoch after a removal (409 while another member's claim holds)", body: claimChannelEpochSchema, status: 200, response: okResponseSchema }),
  uploadChannelShares: route({ method: 'POST', path: '/api/channel-key/shares', access: 'member', summary: 'Shares of the channel key for members who have none, or of the claimed epoch, under one signed header', body: uploadChannelSharesSchema, status: 200, response: okResponseSchema }),
  activateChannelEpoch: route({ method: 'POST', path: '/api/channel-key/activate', access: 'member', summary: "Makes the claimed, uploaded epoch the channel's", body: activateChannelEpochSchema, status: 200, response: okResponseSchema }),
  createSenderEpoch: route({ method: 'POST', path: '/api/channel-key/sender-epochs', access: 'member', summary: "A sender's new epoch in the channel, derived from the channel key (no shares)", body: createSenderEpochSchema, status: 201, response: okResponseSchema }),
  conversationMembers: route({ method: 'GET', path: '/api/conversations/members', access: 'member', summary: 'Who a new epoch of a conversation must be wrapped for', query: conversationMembersQuerySchema, status: 200, response: conversationMembersResponseSchema }),
  createEpoch: route({ method: 'POST', path: '/api/epochs', access: 'member', summary: "Stores a new sender-key epoch's wrapped shares", body: createEpochRequestSchema, status: 201, response: okResponseSchema }),
  epochShares: route({ method: 'GET', path: '/api/epochs/shares', access: 'member', summary: "The caller's own shares of these epochs", query: sharesQuerySchema, status: 200, response: sharesResponseSchema }),
  history: route({ method: 'GET', path: '/api/messages/recent', access: 'member', summary: 'A page of a conversation, or the messages after a cursor', query: historyQuerySchema, status: 200, response: historyResponseSchema }),
  sendMessage: route({ method: 'POST', path: '/api/messages/send', access: 'member', summary: 'Stores and relays one encrypted message', body: sendMessageRequestSchema, status: 201, response: sendMessageResponseSchema }),
  uploadAttachment: route({ method: 'POST', path: '/api/attachments', access: 'member', summary: "Stores an attachment's ciphertext (application/octet-stream) for a conversation the caller may write to", query: uploadAttachmentQuerySchema, rawBody: { contentType: 'application/octet-stream', maxBytes: limits.attachmentCiphertextMaxBytes }, status: 201, response: uploadAttachmentResponseSchema }),
  downloadAttachment: route({ method: 'GET', path: '/api/attachments/:id', access: 'member', summary: "An attachment's ciphertext, for members who may read its conversation", params: attachmentParamsSchema, status: 200, response: binarySchema, contentType: 'application/octet-stream' }),
  message: route({ method: 'GET', path: '/api/messages/:id', access: 'member', summary: 'One message the caller may read (a reply quotes it), or 404', params: messageParamsSchema, status: 200, response: oneMessageResponseSchema }),
  deleteMessage: route({ method: 'DELETE', path: '/api/messages/:id', access: 'member', summary: "Erases one of the caller's own messages for everyone", params: messageParamsSchema, status: 200, response: okResponseSchema }),
  setDisappearing: route({ method: 'POST', path: '/api/conversations/disappearing', access: 'member', summary: "Sets a conversation's disappearing-message timer (the channel's: admins and the creator's account)", body: setDisappearingRequestSchema, status: 201, response: setDisappearingResponseSchema }),
  markRead: route({ method: 'POST', path: '/api/conversations/read', access: 'member', summary: "Stores how far the caller has read a DM or a small group (a message id), only while the caller has read receipts on, never backwards; relayed to the members who have them on too", body: markReadRequestSchema, status: 200, response: markReadResponseSchema }),
  readPosition: route({ method: 'GET', path: '/api/conversations/reads', access: 'member', summary: "The other members' read positions in a DM or a small group: those who have read receipts on, and none unless the caller has them on", query: readPositionQuerySchema, status: 200, response: readPositionResponseSchema }),
  setReadReceipts: route({ method: 'POST', path: '/api/users/me/read-receipts', access: 'member', summary: "Turns the caller's read receipts on or off; off deletes the caller's read positions", body: setReadReceiptsRequestSchema, status: 200, response: readReceiptsSettingSchema }),

  // Private groups: the server keeps who belongs; the name is sealed for the members.
  groups: route({ method: 'GET', path: '/api/groups', access: 'member', summary: "The caller's groups: members, and the sealed name with the caller's share of it", status: 200, response: groupsResponseSchema }),
  createGroup: route({ method: 'POST', path: '/api/groups', access: 'member', summary: 'Creates a group of the caller and the members named, its name sealed for them all', body: createGroupRequestSchema, status: 201, response: groupResponseSchema }),
  addGroupMembers: route({ method: 'POST', path: '/api/groups/members', access: 'member', summary: "Adds members to one of the caller's groups, the name sealed again for the new member set", body: addGroupMembersRequestSchema, status: 200, response: groupResponseSchema }),
  removeGroupMember: route({ method: 'POST', path: '/api/groups/remove', access: 'member', summary: "Removes a member (the group's admins), or the caller leaves; later epochs leave them out", body: removeGroupMemberRequestSchema, status: 200, response: okResponseSchema }),
  adminGroups: route({ method: 'GET', path: '/api/admin/groups', access: 'admin', summary: "That groups exist and their size: no name, no member", status: 200, response: adminGroupsResponseSchema }),

  // Moderation.
  adminBan: route({ method: 'POST', path: '/api/admin/ban-user', access: 'admin', summary: 'Bans a member who is not an administrator', body: banUserRequestSchema, status: 200, response: okResponseSchema }),
  adminUnban: route({ method: 'POST', path: '/api/admin/unban-user', access: 'admin', summary: 'Lifts a ban', body: unbanUserRequestSchema, status: 200, response: okResponseSchema }),
  creatorBan: route({ method: 'POST', path: '/api/super-admin/ban-user', access: 'creator', summary: 'Bans any member', body: creatorBanRequestSchema, status: 200, response: okResponseSchema }),
  creatorUnban: route({ method: 'POST', path: '/api/super-admin/unban-user', access: 'creator', summary: 'Lifts a ban', body: unbanUserRequestSchema, status: 200, response: okResponseSchema }),
  creatorUnbanMany: route({ method: 'POST', path: '/api/super-admin/unban-users', access: 'creator', summary: 'Lifts the bans of several members', body: unbanUsersRequestSchema, status: 200, response: unbanUsersResponseSchema }),
  setRole: route({ method: 'POST', path: '/api/super-admin/set-role', access: 'creator', summary: 'Promotes a member to admin or back', body: setRoleRequestSchema, status: 200, response: okResponseSchema }),
  setCreatorAccount: route({ method: 'POST', path: '/api/super-admin/set-creator-account', access: 'creator', summary: "Marks an account as the creator's own (spared by the emergency shutdown)", body: setCreatorAccountRequestSchema, status: 200, response: okResponseSchema }),

  // The creator's console.
  overview: route({ method: 'GET', path: '/api/super-admin/overview', access: 'creator', summary: 'Member, message and emergency figures', status: 200, response: overviewSchema }),
  monitoredUsers: route({ method: 'GET', path: '/api/super-admin/monitor/users', access: 'creator', summary: 'Every member with their invite key and sale batch', status: 200, response: monitoredUsersSchema }),
  emergencyShutdown: route({ method: 'POST', path: '/api/super-admin/emergency-shutdown', access: 'creator', summary: "Bans everyone but the creator's accounts and closes registration", status: 200, response: shutdownResponseSchema }),
  liftEmergency: route({ method: 'POST', path: '/api/super-admin/lift-emergency', access: 'creator', summary: 'Ends emergency mode (bans stay)', status: 200, response: liftEmergencyResponseSchema }),
  heatmap: route({ method: 'GET', path: '/api/super-admin/security/heatmap', access: 'creator', summary: 'Security events per hour and type, 7 days', status: 200, response: heatmapSchema }),
  risk: route({ method: 'GET', path: '/api/super-admin/security/risk', access: 'creator', summary: 'Risk scores per member and address, 7 days', status: 200, response: riskSchema }),
  unlockUser: route({ method: 'POST', path: '/api/super-admin/unlock-user', access: 'creator', summary: 'Lets a member locked by the breach policy sign in again', body: unlockUserRequestSchema, status: 200, response: okResponseSchema }),
  compliance: route({ method: 'GET', path: '/api/super-admin/security/compliance', access: 'creator', summary: "Checks of this deployment's security settings", status: 200, response: complianceSchema }),

  // Security monitoring: the creator's live monitor and blocks, a member's own view and reports.
  liveEvents: route({ method: 'GET', path: '/api/security/live-events', access: 'creator', summary: 'The 50 latest security events, newest first', status: 200, response: liveEventsResponseSchema }),
  securityMetrics: route({ method: 'GET', path: '/api/security/metrics', access: 'creator', summary: 'Threat aggregates per address, type and member, and the network security state', status: 200, response: securityMetricsSchema }),
  blockedIps: route({ method: 'GET', path: '/api/security/blocked-ips', access: 'creator', summary: 'Addresses blocked now', status: 200, response: blockedIpsResponseSchema }),
  blockIp: route({ method: 'POST', path: '/api/security/block-ip', access: 'creator', summary: 'Refuses an address on every route and socket of every instance', body: blockIpRequestSchema, status: 200, response: blockIpResponseSchema }),
  unblockIp: route({ method: 'POST', path: '/api/security/unblock-ip', access: 'creator', summary: 'Lifts a block', body: unblockIpRequestSchema, status: 200, response: okResponseSchema }),
  mySecurity: route({ method: 'GET', path: '/api/security/me', access: 'member', summary: "The member's own security events and the breach policy", status: 200, response: mySecurityResponseSchema }),
  breachReport: route({ method: 'POST', path: '/api/security/breach', access: 'public', summary: "A client reports its own tamper detection; the breach policy applies to the reporter's own account only", body: breachReportSchema, status: 200, response: breachResponseSchema }),

  // The P2P network: the node registry and WebRTC configuration; signaling goes over the socket.
  p2pNodes: route({ method: 'GET', path: '/api/p2p/nodes', access: 'member', summary: 'Every hosted node, online or not, with its accepted connections', status: 200, response: p2pNodesResponseSchema }),
  p2pHost: route({ method: 'POST', path: '/api/p2p/host', access: 'member', summary: "Starts (or updates) the caller's node; one per member", body: p2pHostRequestSchema, status: 201, response: p2pHostResponseSchema }),
  p2pStopHosting: route({ method: 'DELETE', path: '/api/p2p/host', access: 'member', summary: "Removes the caller's node and closes its connections", status: 200, response: okResponseSchema }),
  p2pConnect: route({ method: 'POST', path: '/api/p2p/connect/:id', access: 'member', summary: 'Opens a connection to an online node; signaling then uses its id', params: p2pConnectParamsSchema, status: 201, response: p2pConnectResponseSchema }),
  p2pConfig: route({ method: 'GET', path: '/api/p2p/config', access: 'member', summary: 'The STUN/TURN servers for peer connections', status: 200, response: p2pConfigResponseSchema }),

  // Web Push: a browser's subscription, told of new messages while its member has no socket open.
  pushKey: route({ method: 'GET', path: '/api/push/key', access: 'member', summary: "The network's VAPID public key, the browser's applicationServerKey", status: 200, response: pushKeyResponseSchema }),
  pushSubscribe: route({ method: 'POST', path: '/api/push/subscribe', access: 'member', summary: "Keeps this browser's push subscription for this session (a known push service's https endpoint; 10 per member, the oldest dropped)", body: pushSubscribeRequestSchema, status: 200, response: okResponseSchema }),
  pushUnsubscribe: route({ method: 'POST', path: '/api/push/unsubscribe', access: 'member', summary: "Forgets one of the caller's push subscriptions", body: pushUnsubscribeRequestSchema, status: 200, response: okResponseSchema }),

  // Decoys (honeypots): plausible answers, nothing real; every hit is a security event.
  decoyAuth: route({ method: 'POST', path: '/api/decoy/auth', access: 'public', summary: 'Decoy', body: decoyRequestSchema, status: 200, response: decoyAuthResponseSchema }),
  decoyValidate: route({ method: 'POST', path: '/api/decoy/validate', access: 'public', summary: 'Decoy', body: decoyRequestSchema, status: 200, response: decoyValidateResponseSchema }),
  decoyDecrypt: route({ method: 'POST', path: '/api/decoy/decrypt', access: 'public', summary: 'Decoy', body: decoyRequestSchema, status: 200, response: decoyDecryptResponseSchema }),
  decoyAnyGet: route({ method: 'GET', path: '/api/decoy/*', access: 'public', summary: 'Decoy', params: decoyPathParamsSchema, status: 200, response: decoyAnyResponseSchema }),
  decoyAnyPost: route({ method: 'POST', path: '/api/decoy/*', access: 'public', summary: 'Decoy', body: decoyRequestSchema, params: decoyPathParamsSchema, status: 200, response: decoyAnyResponseSchema }),
} as const;

/** The type of the route table. */
export type Routes = typeof routes;
/** The name of a route in the table (`'sendMessage'`, …). */
export type RouteName = keyof Routes;

/** `METHOD /path`, the key of a route in the server's authorization table and in OpenAPI checks. */
export const routeKey = (r: Pick<RouteDefinition, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/** Every API path starts so; anything else is the web app or the socket. */
export const API_PREFIX = '/api/';

/** The path of the WebSocket (not an HTTP route: it authenticates inside its own protocol). */
export const SOCKET_PATH = '/ws';

/**
 * The URL of a call: path parameters filled in (URL-encoded), the query appended (undefined
 * values left out).
 */
export function routeUrl(r: RouteDefinition, input: { params?: unknown; query?: unknown } = {}): string {
  const params = (input.params ?? {}) as Record<string, string | number>;
  const value = (name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${routeKey(r)} needs the path parameter ${name}`);
    return String(v);
  };
  // The rest of the path (a route ending in *): its segments encoded, its slashes kept. Replaced
  // first, so a parameter's value ending in * (encodeURIComponent keeps it) is never taken for it.
  const path = r.path
    .replace(/\*$/, () => value('*').split('/').map(encodeURIComponent).join('/'))
    .replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(value(name)));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
