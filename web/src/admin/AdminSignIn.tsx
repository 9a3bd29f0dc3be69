import type { SelfUser } from '@enclave/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { KeyRound, Lock, LogIn } from 'lucide-react';
import { useId } from 'react';
import { Link } from 'wouter';
import { BackLink, PageHeader, SignedInAs } from '../components/PageHeader';
import { useMasterKeyEntry } from '../components/use-master-key-entry';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { toast } from '../components/ui/toast-store';
import { SecretField } from '../login/SecretField';
import { isApiError } from '../net/api-error';
import { checkMasterKey } from '../net/admin-api';
import { adminToasts } from './admin-texts';
import { seedKeyStats } from './use-admin-keys';

/** What /admin shows to anyone who is neither a signed-in admin nor holding the master key: no data. */
export function AdminSignIn({ member }: { member: SelfUser | null }) {
  return (
    <div className="min-h-screen">
      <PageHeader
        icon={<KeyRound className="size-5 text-accent" aria-hidden="true" />}
        title="Key Management"
        heading={false}
        actions={
          <>
            {member ? <SignedInAs username={member.username} /> : null}
            <BackLink href={member ? '/chat' : '/'}>{member ? 'Back to chat' : 'Back to Enclave'}</BackLink>
          </>
        }
      />
      <main className="flex items-start justify-center px-4 py-12">
        <Card className="w-full max-w-md">
          <CardHeader>
            <span className="mb-1 grid size-12 place-items-center rounded-xl border border-amber-500/40 bg-amber-500/10">
              <Lock className="size-6 text-amber-300" aria-hidden="true" />
            </span>
            <h1 className="text-2xl font-bold tracking-tight">Sign-in required</h1>
            <CardDescription>
              Key management is for network administrators and the network creator.{' '}
              {member ? (
                <>
                  You are signed in as <strong className="text-foreground">{member.username}</strong>, who is not an administrator.
                </>
              ) : (
                'You are not signed in.'
              )}
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-5">
            <Button asChild variant="secondary" className="w-full">
              <Link href="/">
                <LogIn aria-hidden="true" /> Sign in as an administrator
              </Link>
            </Button>
            <div className="flex items-center gap-3 text-xs uppercase tracking-wider text-muted" aria-hidden="true">
              <span className="h-px flex-1 bg-border" /> or <span className="h-px flex-1 bg-border" />
            </div>
            <MasterKeyForm />
          </CardContent>
        </Card>
      </main>
    </div>
  );
}

function MasterKeyForm() {
  const queryClient = useQueryClient();
  const hintId = useId();
  const {
    value,
    setValue,
    candidate,
    busy: checking,
    submit,
  } = useMasterKeyEntry({
    check: async (key) => {
      seedKeyStats(queryClient, await checkMasterKey(key));
      toast(adminToasts.creatorAccess);
    },
    onRefused: (error) => {
      if (isApiError(error, 401) || isApiError(error, 403)) toast(adminToasts.accessDenied(error.serverMessage));
      else toast(adminToasts.authenticationError(isApiError(error) ? error.serverMessage : null));
    },
  });

  return (
    <form className="grid gap-2" onSubmit={submit} noValidate>
      <CardTitle className="text-base">Network creator</CardTitle>
      <SecretField
        label="Master Key"
        secretName="master key"
        name="masterKey"
        className="text-xs"
        placeholder="Enter the master key"
        aria-describedby={hintId}
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <p id={hintId} className="text-xs text-muted">
        128-character hex. Kept in this tab's memory only; a reload asks again.
      </p>
      <Button type="submit" disabled={!candidate || checking}>
        <KeyRound aria-hidden="true" /> {checking ? 'Checking…' : 'Unlock Key Management'}
      </Button>
    </form>
  );
}
