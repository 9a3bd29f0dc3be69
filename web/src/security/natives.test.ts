import { describe, expect, it } from 'vitest';
import {
  WATCHED,
  captureNatives,
  cryptoSelfTest,
  findNativeTampering,
  isNativeFunction,
  nativeFindingSeverity,
  type SourceOf,
} from './natives';

const sourceOf: SourceOf = (fn) => Function.prototype.toString.call(fn);

/** A page whose every watched function is a real native function (Node's fetch is JavaScript, so stand-ins). */
function fakePage() {
  const native = () => Math.max;
  const subtle = Object.fromEntries(WATCHED.filter((w) => w.path[1] === 'subtle' && w.path[2]).map((w) => [w.path[2], native()]));
  return {
    fetch: native(),
    XMLHttpRequest: { prototype: { open: Math.min, send: Math.abs } },
    WebSocket: Math.floor,
    crypto: { getRandomValues: Math.ceil, subtle },
    Function: { prototype: { toString: Math.round } },
  };
}

describe('native-function integrity', () => {
  it('tells native functions from script', () => {
    expect(isNativeFunction(Math.max, sourceOf)).toBe(true);
    expect(isNativeFunction(Math.max.bind(null), sourceOf)).toBe(true);
    expect(isNativeFunction(() => 1, sourceOf)).toBe(false);
    expect(
      isNativeFunction(function max() {
        return '[native code]';
      }, sourceOf),
    ).toBe(false);
    expect(isNativeFunction(undefined, sourceOf)).toBe(false);
  });

  it('finds nothing on an untouched page', () => {
    const page = fakePage();
    expect(findNativeTampering(page, captureNatives(page), sourceOf)).toEqual([]);
  });

  it('finds a function replaced after the capture, and one that was never native', () => {
    const page = fakePage();
    const captured = captureNatives(page);
    Reflect.set(page.crypto.subtle, 'digest', async () => new ArrayBuffer(32));
    Reflect.set(page, 'fetch', async () => 'spy');
    expect(findNativeTampering(page, captured, sourceOf)).toEqual([
      { name: 'fetch', kind: 'network', when: 'replaced' },
      { name: 'crypto.subtle.digest', kind: 'crypto', when: 'replaced' },
    ]);

    const wrapped = fakePage();
    Reflect.set(wrapped.Function.prototype, 'toString', function toString() {
      return 'function toString() { [native code] }';
    });
    expect(findNativeTampering(wrapped, captureNatives(wrapped), sourceOf)).toEqual([
      { name: 'Function.prototype.toString', kind: 'integrity', when: 'not_native' },
    ]);
  });

  it('sees a whole crypto object swapped', () => {
    const page = fakePage();
    const captured = captureNatives(page);
    page.crypto = { ...page.crypto };
    expect(findNativeTampering(page, captured, sourceOf).map((f) => f.name)).toEqual(['crypto']);
  });

  it('does not call absent WebCrypto tampering (an insecure context has none)', () => {
    const page = { ...fakePage(), crypto: undefined };
    expect(findNativeTampering(page, captureNatives(page), sourceOf)).toEqual([]);
  });

  it('rates a live replacement of WebCrypto critical, what extensions do (older code, network wrappers) medium', () => {
    expect(nativeFindingSeverity({ name: 'crypto.subtle.digest', kind: 'crypto', when: 'replaced' })).toBe('critical');
    expect(nativeFindingSeverity({ name: 'Function.prototype.toString', kind: 'integrity', when: 'replaced' })).toBe('critical');
    expect(nativeFindingSeverity({ name: 'crypto.subtle.digest', kind: 'crypto', when: 'not_native' })).toBe('medium');
    expect(nativeFindingSeverity({ name: 'Function.prototype.toString', kind: 'integrity', when: 'not_native' })).toBe('medium');
    expect(nativeFindingSeverity({ name: 'fetch', kind: 'network', when: 'replaced' })).toBe('medium');
    expect(nativeFindingSeverity({ name: 'fetch', kind: 'network', when: 'not_native' })).toBe('medium');
  });
});

describe('WebCrypto known-answer test', () => {
  it('passes on the real WebCrypto', async () => {
    expect(await cryptoSelfTest(globalThis.crypto)).toBe(true);
  });

  it('fails on a wrong digest or a stuck generator, passes when there is no WebCrypto to test', async () => {
    const wrongDigest = {
      subtle: { digest: async () => new ArrayBuffer(32) },
      getRandomValues: (a: Uint8Array) => crypto.getRandomValues(a),
    };
    const stuck = { subtle: crypto.subtle, getRandomValues: (a: Uint8Array) => a.fill(7) };
    expect(await cryptoSelfTest(wrongDigest as unknown as Crypto)).toBe(false);
    expect(await cryptoSelfTest(stuck as unknown as Crypto)).toBe(false);
    expect(await cryptoSelfTest(undefined)).toBe(true);
  });
});
