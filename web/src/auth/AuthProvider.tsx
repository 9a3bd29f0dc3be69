import {
  createAccount,
  deriveLoginKey,
  generateAccessToken,
  openPrivateKeys,
} from '@enclave/crypto';
import type { SessionResponse } from '@enclave/protocol';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { isApiError } from '../net/api-error';
import * as api from '../net/http';
import { AuthContext, type AuthContextValue, type AuthState, type Session } from './auth-context';
import { AUTH_LOGIN_ACTION, ClientRateLimitError, allowLoginAttempt } from './client-rate-limit';
import { clearKeyStore, loadIdentity, saveIdentity } from './key-store';
import { forgetUser, storeUser } from './user-storage';

function publicIdentityOf(response: SessionResponse) {
  return { encryptionPublicKey: response.encryptionPublicKey, signingPublicKey: response.signingPublicKey };
}

let leaving: Promise<void> | null = null;

/**
 * Forgets everything this browser holds for the member and starts over at /. Idempotent: a logout
 * and the `session_ended` frame it causes must not start two navigations.
 */
function wipeLocalAndLeave(): Promise<void> {
  leaving ??= (async () => {
    forgetUser();
    await clearKeyStore();
    window.location.assign('/');
  })();
  return leaving;
}

/**
 * Start-up: the session cookie (asked through /api/auth/me) plus the private keys in IndexedDB
 * restore a member. The access token is never stored, so without those keys the member signs in
 * again.
 */
async function restore(): Promise<Session | null> {
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
  const identity = await loadIdentity(response.user.id).catch(() => null);
  if (!identity) {
    // A live cookie without keys is useless to the member; end it rather than leave it open.
    await api.logout().catch(() => undefined);
    forgetUser();
    await clearKeyStore();
    return null;
  }
  storeUser(response.user);
  return { user: response.user, publicIdentity: publicIdentityOf(response), privateIdentity: identity };
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

  const login = useCallback(async (accessToken: string): Promise<Session> => {
    if (!allowLoginAttempt(AUTH_LOGIN_ACTION)) throw new ClientRateLimitError();
    setLoading(true);
    try {
      const loginKey = await deriveLoginKey(accessToken);
      const response = await api.login(loginKey);
      const privateIdentity = await openPrivateKeys(accessToken, response.encryptedPrivateKey);
      await saveIdentity(response.user.id, privateIdentity);
      storeUser(response.user);
      const session: Session = { user: response.user, publicIdentity: publicIdentityOf(response), privateIdentity };
      setState({ status: 'loggedIn', session });
      return session;
    } finally {
      setLoading(false);
    }
  }, []);

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
