import { describe, expect, it } from 'vitest';
import { keysNonExtractable, pinRows, securityScore, type StatusCheck } from './status-checks';

const check = (state: StatusCheck['state']): StatusCheck => ({ id: state, label: state, state, detail: '' });

describe('security score', () => {
  it('is the rounded share of checks that pass', () => {
    expect(securityScore([check('pass'), check('pass'), check('fail')])).toEqual({ passed: 2, total: 3, score: 67, complete: true });
    expect(securityScore([check('pass'), check('pending')])).toEqual({ passed: 1, total: 2, score: 50, complete: false });
    expect(securityScore([])).toEqual({ passed: 0, total: 0, score: 0, complete: true });
  });
});

describe('stored keys', () => {
  it('pass only when there are keys and none is extractable', () => {
    expect(keysNonExtractable([{ extractable: false }, { extractable: false }])).toBe(true);
    expect(keysNonExtractable([{ extractable: false }, { extractable: true }])).toBe(false);
    expect(keysNonExtractable([])).toBe(false);
  });
});

describe('pinned contacts', () => {
  it('flags a changed key first and marks members no longer listed', () => {
    const listed = new Map([
      ['b', { username: 'bob', fingerprint: '111' }],
      ['c', { username: 'carol', fingerprint: '999' }],
    ]);
    const rows = pinRows(
      [
        { contact: 'b', fingerprint: '111' },
        { contact: 'c', fingerprint: '222' },
        { contact: 'd', fingerprint: '333' },
      ],
      listed,
    );
    expect(rows.map((r) => [r.username, r.changed, r.current])).toEqual([
      ['carol', true, '999'],
      ['bob', false, '111'],
      ['Former member', false, null],
    ]);
  });

  it('calls a contact verified only while the listed key is the verified pin', () => {
    const listed = new Map([
      ['b', { username: 'bob', fingerprint: '111' }],
      ['c', { username: 'carol', fingerprint: '999' }],
    ]);
    const rows = pinRows(
      [
        { contact: 'b', fingerprint: '111', verifiedFingerprint: '111' },
        { contact: 'c', fingerprint: '222', verifiedFingerprint: '222' },
        { contact: 'd', fingerprint: '333', verifiedFingerprint: '333' },
      ],
      listed,
    );
    expect(rows.map((r) => [r.username, r.changed, r.verified])).toEqual([
      ['carol', true, false],
      ['bob', false, true],
      ['Former member', false, false],
    ]);
  });
});
