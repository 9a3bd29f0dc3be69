/**
 * The texts of the Advanced Security Command Center (docs/spec.md §2), in one place. Texts in
 * quotes in the specification are kept exactly; the rest say where a figure comes from.
 */
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';
import { serverText } from '../creator/creator-toasts';
import { plural } from '../lib/format';

export const pageTexts = {
  back: 'Back to Control Panel',
  label: 'Military-Grade Protection',
  title: 'Advanced Security Command Center',
  subtitle: 'Real-time threat detection, behavioral analysis, and tamper protection monitoring',
  signInSubtitle: 'Advanced Security Command Center · Enclave',
} as const;

export const commandCenterTexts = {
  title: 'Security Command Center',
  subtitle: 'Military-Grade Protection Active',
  liveMonitoring: 'Live Monitoring',
  protectionLevel: 'Protection level',
  waiting: "Waiting for the network's figures…",
  attackTitle: 'SECURITY ALERT: System Under Attack',
  attackText: 'Advanced threat patterns detected. Enhanced protection measures are active.',

  assessment: 'Threat Level Assessment',
  threatLevel: 'Threat level',
  threatSources: (network: number, browser: number) =>
    `Network ${network} (events of the last hour) + this browser ${browser}, at most 100.`,
  accuracy: 'Detection accuracy',
  accuracyNote: "Share of this browser's due detector checks that ran.",
  accuracyEmpty: 'No detector check has run in this browser yet.',
  responseTime: 'Response time',
  responseNote: 'Median time from a ban to its sockets closing, last 7 days.',
  responseEmpty: 'No ban measured yet.',

  countermeasures: 'Active Countermeasures',
  countermeasureActive: 'Active',
  noCountermeasures: 'No active countermeasures - System operating normally',

  summary: 'Threat Detection Summary',
  summaryNote: "Network events of the last 24 hours and this browser's detections.",
  severities: { total: 'Total', critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low' },

  vectors: 'Recent Threat Vectors',
  noVectors: 'No threats detected - System is secure',
  source: 'Source',
  fromBrowser: 'Detected in this browser',
} as const;

export const monitorTexts = {
  title: 'Real-Time Security Monitor',
  tiles: {
    activeThreats: { label: 'Active Threats', hint: 'High or critical events in the last hour' },
    blockedIps: { label: 'Blocked IPs', hint: 'Addresses refused on every route now' },
    deobfuscation: { label: 'Deobfuscation', hint: 'Client tamper reports in the last 24 hours' },
    obfuscation: { label: 'Obfuscation', hint: "Enhanced once the network's figures load" },
    emergency: { label: 'Emergency', active: 'Registration closed, members banned', standby: 'Network operating normally' },
  },
  obfuscationLevels: { standard: 'STANDARD', enhanced: 'ENHANCED' },
  emergencyStates: { active: 'ACTIVE', standby: 'STANDBY' },
  emergencyAlert: 'Emergency mode is active. All non-essential services have been restricted.',

  events: 'Live Security Events',
  live: 'Live',
  offline: 'Offline',
  pause: 'Pause',
  resume: 'Resume',
  pollNote: (seconds: number) => `Refreshes every ${seconds} s while live`,
  pausedNote: 'Paused: nothing is fetched until you resume',
  loading: 'Loading security events…',
  noEvents: 'No security events detected',
  noEventsNote: 'System is secure',

  count: (n: number) => `${n} events`,
  first: 'first',
  last: 'last',
  member: 'Member',
  actor: 'Actor',
  ipAnalysis: 'IP Analysis',
  client: 'Client',
  local: 'Local',
  public: 'Public',
  webrtc: 'WebRTC',
  unknown: 'Unknown',
  noIpData: 'No IP data',
  blockIp: 'Block IP',
  blocked: 'Blocked',
  blockLabel: (ip: string) => `Block IP ${ip}`,
  headers: 'Headers',
  noHeaders: 'No headers kept',
  polymorphicStates: { active: 'ACTIVE', inactive: 'INACTIVE' },
} as const;

/** The network's obfuscation figures, shown once above the events they apply to (docs/security.md §10). */
export const obfuscationTexts = {
  title: 'Obfuscation Status',
  note: "The network's figures, the same for every event below.",
  names: { layers: 'Layers', decoys: 'Decoys', dynamicKeys: 'Dynamic Keys', polymorphic: 'Polymorphic' },
  decoyFigure: (hits: number, endpoints: number) => `${plural(hits, 'hit')} on ${plural(endpoints, 'endpoint')}`,
  hints: {
    layers: 'Encryption a message crosses: AES-GCM content, RSA-OAEP-wrapped sender key, and TLS when served over HTTPS',
    decoys: 'Calls in the last 24 hours to the decoy endpoints this server serves; only probes and tampered pages call them',
    dynamicKeys: 'Sender-key epochs created in the last 24 hours',
    polymorphic: 'Every message under a key of its own: ACTIVE once one was sent in the last 24 hours',
  },
} as const;

/** docs/spec.md §7: the reason of every block made here. */
export const BLOCK_REASON = 'Manual block from admin panel';

export const featureTexts = {
  title: 'Protection Features Active',
  note: 'Ticked only while that part of the tamper detector is running in this browser.',
  running: 'Running',
  notRunning: 'Not running in this browser',
  features: {
    functionIntegrity: 'Function Integrity',
    memoryProtection: 'Memory Protection',
    domMonitoring: 'DOM Monitoring',
    networkAnalysis: 'Network Analysis',
  },
} as const;

export const blockedTexts = {
  title: 'Blocked Addresses',
  description: 'Every address refused now, on every route and socket. Unblock one to let it in again.',
  empty: 'No address is blocked',
  emptyNote: 'Addresses you block from a live event appear here.',
  what: 'blocked addresses',
  columns: { ip: 'Address', reason: 'Reason', since: 'Since', expires: 'Expires', hits: 'Refused', actions: 'Actions' },
  untilUnblocked: 'Until unblocked',
  unblock: 'Unblock',
  unblockLabel: (ip: string) => `Unblock ${ip}`,
} as const;

export const securityToasts = {
  unblocked: (ip: string) => good('Address Unblocked', `${ip} can reach the network again.`),
  unblockFailed: (error: unknown) => bad('Unblock Failed', serverText(error, 'Failed to connect to server')),
} as const;

/** What each kind of server event means (docs/security.md §10); unknown kinds are named by their type. */
export const eventDescriptions: Readonly<Record<string, string>> = {
  login_failed: 'Sign-in with an unknown login key',
  banned_access: 'A banned member tried to sign in',
  rate_limit: 'A rate limit refused requests',
  websocket_auth_failed: 'A socket without a valid session tried to authenticate',
  key_validation_failed: 'An invite key was refused at validation',
  canary_key_used: 'A canary key was used: a leaked key list is being tried',
  master_key_failed: 'A wrong master key was presented',
  master_key_previous_used: 'The previous master key was used (a rotation is under way): switch to the new one',
  admin_keys_generated: 'Invite keys were generated',
  admin_keys_revoked: 'Invite keys were revoked',
  admin_keys_exported: 'Invite keys were exported',
  member_banned: 'A member was banned',
  member_unbanned: 'A ban was lifted',
  creator_role_changed: "A member's role was changed",
  creator_account_marked: "An account was marked as the creator's own",
  emergency_shutdown: 'Emergency shutdown: members banned, registration closed',
  emergency_lifted: 'Emergency mode was lifted',
  locked_access: 'A member locked after a breach report tried to sign in',
  wiped_access: 'A wiped member tried to sign in',
  decoy_hit: 'A decoy endpoint was probed',
  blocked_ip_hit: 'A blocked address was refused',
  blocked_ip_creator_access: 'The master key was used from a blocked address',
  breach_report: "A member's client reported tampering",
  ip_blocked: 'An address was blocked',
  ip_unblocked: 'An address was unblocked',
  member_unlocked: 'A locked member was unlocked',
  sessions_revoked: 'A member ended their sessions',
  slow_request: 'A request body did not arrive in time: its connection was closed',
};
