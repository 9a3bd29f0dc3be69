import { useSyncExternalStore } from 'react';
import { useAuth } from '../auth/auth-context';
import { getMasterKey, subscribeMasterKey } from '../net/creator-session';
import { AdminPanel } from './AdminPanel';
import { AdminSignIn } from './AdminSignIn';

/**
 * /admin: key management for admins and the creator. The server enforces who may call what; this
 * screen only avoids asking for data the visitor may not see, and offers the ways in instead.
 */
export function AdminPage() {
  const { state } = useAuth();
  // The creator may have unlocked the console (/super-admin) in this same tab.
  const masterKey = useSyncExternalStore(subscribeMasterKey, getMasterKey);

  if (masterKey === null && state.status === 'restoring') {
    return (
      <main className="grid min-h-screen place-items-center text-sm text-muted" aria-busy="true">
        Checking access…
      </main>
    );
  }
  const member = state.status === 'loggedIn' ? state.session.user : null;
  if (masterKey !== null) return <AdminPanel signedInAs="the network creator" viaMasterKey />;
  if (member?.role === 'admin') return <AdminPanel signedInAs={member.username} viaMasterKey={false} />;
  return <AdminSignIn member={member} />;
}
