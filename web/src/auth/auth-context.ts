import type { PrivateIdentity, PublicIdentity, ShareIdentity } from '@enclave/crypto';
import type { SelfUser } from '@enclave/protocol';
import { createContext, useContext } from 'react';

/**
 * A signed-in member as the browser holds them: profile, own public keys (derived locally from the
 * private keys at login, never the server's copy), private keys.
 */
export type Session = {
  user: SelfUser;
  publicIdentity: PublicIdentity;
  privateIdentity: PrivateIdentity;
  /** The share key for the general channel's key; absent in a session restored from before share keys were kept. */
  share?: ShareIdentity;
};

export type AuthState = { status: 'restoring' } | { status: 'loggedOut' } | { status: 'loggedIn'; session: Session };

export type AuthContextValue = {
  state: AuthState;
  /** True while a login or a registration is running. */
  loading: boolean;
  /** Signs in with the access token (only a key derived from it is sent). */
  login(accessToken: string): Promise<Session>;
  /** Creates keys and a new access token, registers, and returns the token. Does not sign in. */
  register(inviteKey: string, username: string): Promise<string>;
  /** Ends the session on the server, forgets the member's local data and keys (not the contacts' pins) and reloads /. */
  logout(): Promise<void>;
  /** Forgets the member's local data and keys (not the contacts' pins) and reloads / (the server already ended the session). */
  endLocally(): Promise<void>;
};

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}

/** The session of a signed-in member; only for screens that render after the login check. */
export function useSession(): Session {
  const { state } = useAuth();
  if (state.status !== 'loggedIn') throw new Error('useSession needs a signed-in member');
  return state.session;
}
