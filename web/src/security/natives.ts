/**
 * Native-function integrity (docs/spec.md §4 and §8: "modified native function", "crypto API
 * compromised", "function integrity violation"). The functions the app's security rests on are
 * captured when the app's code first runs; a check compares what the page holds now with that
 * capture (a replacement while the page runs) and asks the captured `Function.prototype.toString`
 * whether each is still the browser's own code (a replacement made before the app loaded, by an
 * extension or an injected script).
 */
import type { Severity } from '@enclave/protocol';

type Kind = 'network' | 'crypto' | 'integrity';

type Watched = {
  name: string;
  path: readonly string[];
  kind: Kind;
  /** An object (crypto, crypto.subtle): only its identity is compared. */
  object?: true;
};

const SUBTLE_METHODS = [
  'encrypt',
  'decrypt',
  'sign',
  'verify',
  'digest',
  'generateKey',
  'deriveKey',
  'deriveBits',
  'importKey',
  'exportKey',
  'wrapKey',
  'unwrapKey',
] as const;

/** Everything watched: the network, WebCrypto, and the function that would hide a replacement. */
export const WATCHED: readonly Watched[] = [
  { name: 'fetch', path: ['fetch'], kind: 'network' },
  { name: 'XMLHttpRequest.prototype.open', path: ['XMLHttpRequest', 'prototype', 'open'], kind: 'network' },
  { name: 'XMLHttpRequest.prototype.send', path: ['XMLHttpRequest', 'prototype', 'send'], kind: 'network' },
  { name: 'WebSocket', path: ['WebSocket'], kind: 'network' },
  { name: 'crypto', path: ['crypto'], kind: 'crypto', object: true },
  { name: 'crypto.subtle', path: ['crypto', 'subtle'], kind: 'crypto', object: true },
  { name: 'crypto.getRandomValues', path: ['crypto', 'getRandomValues'], kind: 'crypto' },
  ...SUBTLE_METHODS.map((m): Watched => ({ name: `crypto.subtle.${m}`, path: ['crypto', 'subtle', m], kind: 'crypto' })),
  { name: 'Function.prototype.toString', path: ['Function', 'prototype', 'toString'], kind: 'integrity' },
];

/** What was watched, as found at capture time. */
export type NativeCapture = ReadonlyMap<string, unknown>;

function readPath(host: object, path: readonly string[]): unknown {
  let value: unknown = host;
  for (const key of path) {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

/** The watched functions and objects of `host` (the page's `globalThis`) as they are now. */
export function captureNatives(host: object): NativeCapture {
  return new Map(WATCHED.map((w) => [w.name, readPath(host, w.path)]));
}

/** `Function.prototype.toString` as captured, applied without going through anything replaceable since. */
export type SourceOf = (fn: (...args: never[]) => unknown) => string;

const NATIVE_SOURCE = /^function [\w$.]*\(\) \{\s*\[native code\]\s*\}$/;

/** True for a function whose source the engine shows as `[native code]`. */
export function isNativeFunction(value: unknown, sourceOf: SourceOf): boolean {
  if (typeof value !== 'function') return false;
  try {
    return NATIVE_SOURCE.test(sourceOf(value as (...args: never[]) => unknown));
  } catch {
    return false;
  }
}

/** `replaced`: differs from the capture (changed while the page ran); `not_native`: was never the browser's own. */
export type NativeFinding = { name: string; kind: Kind; when: 'replaced' | 'not_native' };

/**
 * The watched functions that are no longer what the browser provides. Something absent at
 * capture and still absent (WebCrypto outside a secure context) is not tampering: the status
 * checks of /security report it instead.
 */
export function findNativeTampering(host: object, captured: NativeCapture, sourceOf: SourceOf): NativeFinding[] {
  const findings: NativeFinding[] = [];
  for (const w of WATCHED) {
    const now = readPath(host, w.path);
    const then = captured.get(w.name);
    if (now !== then) findings.push({ name: w.name, kind: w.kind, when: 'replaced' });
    else if (!w.object && now !== undefined && !isNativeFunction(now, sourceOf))
      findings.push({ name: w.name, kind: w.kind, when: 'not_native' });
  }
  return findings;
}

/**
 * How serious a finding is, which decides what it sets off (`escalation` in constants.ts). Code
 * already there when the app loaded comes from an extension or the browser itself, and network
 * functions are what extensions wrap at any time (ad blockers, price trackers, developer helpers):
 * medium, recorded and shown, never escalated. WebCrypto, or the function that would hide a
 * replacement, replaced while the page runs is someone at work in this very page: critical.
 */
export function nativeFindingSeverity(f: NativeFinding): Severity {
  return f.kind === 'network' || f.when === 'not_native' ? 'medium' : 'critical';
}

const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

/**
 * A known-answer test of WebCrypto: SHA-256 of "abc" (FIPS 180-2), and random bytes that are not
 * all equal (a real generator repeats one byte 32 times with probability 2^-248). False when
 * either fails or throws; true when WebCrypto is absent (nothing to test; /security reports it).
 */
export async function cryptoSelfTest(c: Crypto | undefined): Promise<boolean> {
  if (!c?.subtle) return true;
  try {
    const digest = new Uint8Array(await c.subtle.digest('SHA-256', new TextEncoder().encode('abc')));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    const random = c.getRandomValues(new Uint8Array(32));
    return hex === SHA256_ABC && random.some((b) => b !== random[0]);
  } catch {
    return false;
  }
}
