/**
 * The status checks of /security and the score computed from them: each check passes, fails or is
 * still running, and the score is the share of checks that pass, each counting equally.
 */
export type CheckState = 'pass' | 'fail' | 'pending';

export type StatusCheck = { id: string; label: string; state: CheckState; detail: string };

export type Score = { passed: number; total: number; score: number; complete: boolean };

/** Percentage (0-100, rounded) of the checks that pass; a running check counts as not passed. */
export function securityScore(checks: readonly StatusCheck[]): Score {
  const passed = checks.filter((c) => c.state === 'pass').length;
  const total = checks.length;
  return {
    passed,
    total,
    score: total === 0 ? 0 : Math.round((passed / total) * 100),
    complete: checks.every((c) => c.state !== 'pending'),
  };
}

/** Whether both stored private keys are CryptoKeys that cannot be exported. */
export function keysNonExtractable(keys: readonly { extractable: boolean }[]): boolean {
  return keys.length > 0 && keys.every((k) => k.extractable === false);
}

export type PinRow = {
  id: string;
  username: string;
  pinned: string;
  current: string | null;
  changed: boolean;
  /** The member marked exactly the listed keys verified. */
  verified: boolean;
};

/**
 * The contacts this member pinned, each with the safety number the server lists now: changed when
 * it differs from the pin; `current` null when the member is no longer listed.
 */
export function pinRows(
  pins: readonly { contact: string; fingerprint: string; verifiedFingerprint?: string }[],
  listed: ReadonlyMap<string, { username: string; fingerprint: string }>,
): PinRow[] {
  return pins
    .map((p) => {
      const now = listed.get(p.contact);
      const changed = now !== undefined && now.fingerprint !== p.fingerprint;
      return {
        id: p.contact,
        username: now?.username ?? 'Former member',
        pinned: p.fingerprint,
        current: now?.fingerprint ?? null,
        changed,
        verified: now !== undefined && !changed && p.verifiedFingerprint === p.fingerprint,
      };
    })
    .sort((a, b) => Number(b.changed) - Number(a.changed) || a.username.localeCompare(b.username));
}
