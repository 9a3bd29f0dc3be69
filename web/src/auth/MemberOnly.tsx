import { Fragment, type ReactNode } from 'react';
import { Redirect } from 'wouter';
import { useAuth, type Session } from './auth-context';

/**
 * A signed-in member's screen: it waits while the session is restored and sends anyone else to /.
 * The screen is keyed by the member, so signing in as someone else starts it afresh.
 */
export function MemberOnly({ screen }: { screen: (session: Session) => ReactNode }) {
  const { state } = useAuth();
  if (state.status === 'restoring') {
    return (
      <main className="grid min-h-screen place-items-center text-sm text-muted" aria-busy="true">
        Restoring secure session…
      </main>
    );
  }
  if (state.status === 'loggedOut') return <Redirect to="/" replace />;
  return <Fragment key={state.session.user.id}>{screen(state.session)}</Fragment>;
}
