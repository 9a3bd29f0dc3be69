import { wipeBrowser } from '../security/wipe';

/** The specification's socket breach alert (docs/spec.md §8). */
export const BREACH_ALERT_TEXT = 'SECURITY BREACH: Your account has been compromised. All data wiped for protection.';

/**
 * The server says this account was breached: tell the member, wipe what the browser holds (the
 * tamper detectors' wipe, docs/spec.md §4), and go to /. The contacts' key pins are kept: a server
 * that could wipe them by sending this frame could have every contact re-pinned to keys of its
 * choosing.
 */
export async function handleSecurityBreach(): Promise<void> {
  window.alert(BREACH_ALERT_TEXT);
  await wipeBrowser({ pins: 'keep' });
  window.location.assign('/');
}
