import { deleteEnclaveDatabase } from '../lib/enclave-db';

/** The specification's socket breach alert. */
export const BREACH_ALERT_TEXT = 'SECURITY BREACH: Your account has been compromised. All data wiped for protection.';

/**
 * The server says this account was breached: tell the member, wipe everything the browser holds
 * (local and session storage, stored keys) and go to /.
 */
export async function handleSecurityBreach(): Promise<void> {
  window.alert(BREACH_ALERT_TEXT);
  localStorage.clear();
  sessionStorage.clear();
  await deleteEnclaveDatabase();
  window.location.assign('/');
}
