/** The member's security dashboard (/security): its texts in one place. */
import type { BreachPolicy } from '@enclave/protocol';
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';
import { plural } from '../lib/format';

export const checkTexts = {
  secureContext: {
    label: 'Secure context',
    pass: 'This page runs in a secure context (HTTPS, or this computer): the browser provides WebCrypto and the connection cannot be read on the way.',
    fail: 'Not a secure context: the connection can be read or altered on the way, and the browser withholds WebCrypto.',
  },
  webCrypto: {
    label: 'WebCrypto available',
    pass: "The browser's WebCrypto is present and gives the known answer for SHA-256.",
    fail: 'WebCrypto is missing or gave a wrong known answer: this browser cannot be trusted with your keys.',
  },
  keysNonExtractable: {
    label: 'Private keys non-extractable',
    pass: 'Both private keys are stored in IndexedDB as non-extractable keys: scripts can use them but never read them out.',
    missing: 'No private keys are stored in this browser: sign in again.',
    extractable: 'A stored private key is extractable.',
  },
  session: {
    label: 'Session valid',
    pass: "The server accepts this browser's session.",
    fail: "The server does not accept this browser's session: sign in again.",
  },
  serverKeys: {
    label: 'Server has your real public keys',
    pass: 'The public keys the server gives out for you are the ones derived from your private keys.',
    fail: 'The server gives out public keys for you that are not yours.',
  },
  contacts: {
    label: "Contacts' keys unchanged",
    none: 'No contact pinned in this browser yet.',
    pass: (n: number) => `${plural(n, 'contact')} pinned; every key matches its pin.`,
    fail: (n: number) =>
      `${plural(n, 'contact')} now ${n === 1 ? 'has' : 'have'} a key that differs from the pin: compare safety numbers before trusting them.`,
  },
  tamper: {
    label: 'No tampering detected in this browser',
    pass: (checks: number) => `The tamper detector has run ${plural(checks, 'check')} since this page loaded and found nothing.`,
    waiting: "Waiting for the tamper detector's first check (it runs every few seconds).",
    fail: (n: number) => `${plural(n, 'detection')} since this page loaded (listed under Recent alerts).`,
  },
  pending: 'Checking…',
} as const;

export const scoreTexts = {
  how: (total: number) =>
    `The score is the share of the ${total} checks below that pass, each counting equally; a check still running counts as not passed.`,
  summary: (passed: number, total: number) => `${passed} of ${total} checks passed`,
} as const;

/** The breach policy in plain words (what the server does when this browser reports tampering). */
export const breachPolicyTexts: Record<BreachPolicy, string> = {
  log: 'When this browser detects tampering, it wipes its Enclave data and reports to the server, which records the report. Your account stays open: sign in again with your access token.',
  lock: 'When this browser detects tampering, it wipes its Enclave data and reports to the server, which locks your account until the network creator unlocks it.',
  wipe: 'When this browser detects tampering, it wipes its Enclave data and reports to the server, which wipes your account for good: you would need a new access key to create a new vault.',
};

export const sessionTexts = {
  current: 'This device',
  unknownBrowser: 'Unknown browser',
  activeNow: 'Active now',
  signOut: 'Sign out',
  signOutOthers: 'Sign out all other devices',
  onlyThis: 'This is the only device signed in to your account.',
  ended: (n: number) => good('Other Devices Signed Out', `${plural(n, 'device')} signed out.`),
  failed: bad('Sign-out Failed', 'The other devices could not be signed out. Please try again.'),
  confirmTitle: (device: string) => `Sign out ${device}?`,
  confirmBody: 'That browser is signed out at once, its open pages included. Signing in there again takes your access token.',
  confirm: 'Sign Out',
  busy: 'Signing out…',
  endedOne: (device: string) => good('Device Signed Out', `${device} is signed out.`),
  failedOne: bad('Sign-out Failed', 'That device could not be signed out. Please try again.'),
} as const;

export const wipeTexts = {
  button: 'Emergency Wipe',
  title: 'Wipe this browser and end every session?',
  confirm: 'Wipe Now',
  busy: 'Wiping…',
  points: [
    'Every session of your account ends, on every device.',
    "This browser forgets your keys, your contacts' pins and every other Enclave data.",
    'Your account and messages stay on the server: sign in again with your access token.',
  ],
  done: { title: 'Emergency Wipe Complete', description: 'This browser holds no Enclave data. Sign in again with your access token.' },
  serverFailed: {
    title: 'Emergency Wipe Incomplete',
    description: 'This browser was wiped, but the server could not end your sessions. Sign in and use the emergency wipe again.',
  },
} as const;

export const emptyTexts = {
  accountEvents: 'No security events on your account in the last 30 days.',
  browserDetections: 'Nothing detected in this browser since this page loaded.',
  loadFailed: 'Could not load this from the server.',
} as const;
