import { createAccount, deriveLoginKey, generateAccessToken, openPrivateKeys } from '@enclave/crypto';
import type { SessionResponse } from '@enclave/protocol';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { clearUnreadBadge } from '../chat/app-badge';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import * as api from '../net/http';
import { unsubscribeLocally } from '../push/push';
import { AuthContext, type AuthContextValue, type AuthState, type Session } from './auth-context';
import { AUTH_LOGIN_ACTION, browserId, limitedLogin } from './client-rate-limit';
import { clearKeyStore, loadIdentity, saveIdentity } from './key-store';
import { OwnKeysMismatchError, ownKeysMismatchToast, samePublicIdentity } from './own-identity';
import { forgetUser, readStoredUser, storeUser } from './user-storage';

function publicIdentityOf(response: SessionResponse) {
  return { encryptionPublicKey: response.encryptionPublicKey, signingPublicKey: response.signingPublicKey };
}

let leaving: Promise<void> | null = null;

/**
 * Forgets the member's user data and identity keys held by this browser (the contacts' key pins
 * stay) and starts over at /. Idempotent: a logout and the `session_ended` frame it causes must not
 * start two navigations.
 */
function wipeLocalAndLeave(): Promise<void> {
  leaving ??= (async () => {
    forgetUser();
    clearUnreadBadge();
    await clearKeyStore();
    // This browser's push subscription ends with the session (the server deleted its copy).
    await unsubscribeLocally();
    window.location.assign('/');
  })();
  return leaving;
}

/**
 * Start-up: the stored profile says a member signed in here; the session cookie (asked through
 * /api/auth/me) plus the identity in IndexedDB then restore them. The access token is never stored, so without those keys the member signs in again.
 * The member's own public keys are the stored ones, never /me's; if /me's differ, the server is
 * not to be trusted with this session and it ends here.
 */
async function restore(): Promise<Session | null> {
  // No profile stored: this browser is signed out (or never signed in), so there is no session to
  // ask about, and a signed-out visitor's console gets no 401 (docs/spec.md §4 restores only from
  // stored user data too).
  const stored = readStoredUser();
  if (stored === null) return null;
  // The keys are read while the server is asked: neither waits for the other.
  const storedIdentity = loadIdentity(stored.id).catch(() => null);
  let response: SessionResponse;
  try {
    response = await api.me();
  } catch (error) {
    if (isApiError(error, 401)) {
      forgetUser();
      await clearKeyStore();
    }
    return null;
  }
  const identity = response.user.id === stored.id ? await storedIdentity : await loadIdentity(response.user.id).catch(() => null);
  const mismatch = identity !== null && !samePublicIdentity(identity.publicIdentity, publicIdentityOf(response));
  if (!identity || mismatch) {
    // A live cookie without keys is useless to the member, and one whose server lies about their
    // keys is dangerous; end it rather than leave it open.
    await api.logout().catch(() => undefined);
    forgetUser();
    await clearKeyStore();
    if (mismatch) toast(ownKeysMismatchToast);
    return null;
  }
  storeUser(response.user);
  return { user: response.user, ...identity };
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ status: 'restoring' });
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    let cancelled = false;
    restore().then(
      (session) => {
        if (!cancelled) setState(session ? { status: 'loggedIn', session } : { status: 'loggedOut' });
      },
      () => {
        if (!cancelled) setState({ status: 'loggedOut' });
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);

  const login = useCallback(
    (accessToken: string): Promise<Session> =>
      limitedLogin(AUTH_LOGIN_ACTION, async () => {
        setLoading(true);
        try {
          const loginKey = await deriveLoginKey(accessToken);
          const response = await api.login(loginKey, browserId());
          const { publicIdentity, share, ...privateIdentity } = await openPrivateKeys(accessToken, response.encryptedPrivateKey);
          if (!samePublicIdentity(publicIdentity, publicIdentityOf(response))) {
            // The server would hand out keys that are not the member's: refuse, keep nothing, and
            // end the session it just opened.
            await api.logout().catch(() => undefined);
            throw new OwnKeysMismatchError();
          }
          await saveIdentity(response.user.id, { privateIdentity, publicIdentity, share });
          // Accounts made before share keys publish theirs at sign-in; a failure waits for the next one.
          await api.publishShareKey({ sharePublicKey: share.sharePublicKey, signature: share.signature }).catch(() => undefined);
          storeUser(response.user);
          const session: Session = { user: response.user, publicIdentity, privateIdentity, share };
          setState({ status: 'loggedIn', session });
          return session;
        } finally {
          setLoading(false);
        }
      }),
    [],
  );

  const register = useCallback(async (inviteKey: string, username: string): Promise<string> => {
    setLoading(true);
    try {
      const accessToken = generateAccessToken();
      const account = await createAccount(accessToken);
      const loginKey = await deriveLoginKey(accessToken);
      await api.register({
        inviteKey,
        username,
        loginKey,
        encryptionPublicKey: account.publicIdentity.encryptionPublicKey,
        signingPublicKey: account.publicIdentity.signingPublicKey,
        encryptedPrivateKey: account.encryptedPrivateKey,
        shareKey: { sharePublicKey: account.share.sharePublicKey, signature: account.share.signature },
      });
      return accessToken;
    } finally {
      setLoading(false);
    }
  }, []);

  const logout = useCallback(async () => {
    await api.logout().catch(() => undefined);
    await wipeLocalAndLeave();
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({ state, loading, login, register, logout, endLocally: wipeLocalAndLeave }),
    [state, loading, login, register, logout],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
