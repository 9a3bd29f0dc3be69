import { limits } from '@enclave/protocol';
import { Crown, KeyRound, Loader2, ShieldAlert } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'wouter';
import { useMasterKeyEntry } from '../components/use-master-key-entry';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { authenticateCreator } from '../net/creator-api';
import { SecretField } from '../login/SecretField';
import { creatorQueryKeys } from './creator-queries';
import { creatorToasts, isNetworkFailure } from './creator-toasts';
import { HeroPage } from '../components/HeroPage';

const MASTER_KEY_PATTERN = new RegExp(`^[0-9a-f]{${limits.masterKeyLength}}$`);

/**
 * The master-key sign-in (docs/spec.md §5): a password field, the "128-character hex"
 * hint, and a button disabled while the field is empty or a check is running. The console opens
 * once the server accepted the key for the overview call (docs/spec.md §4). /advanced-security asks
 * with the same card, under its own subtitle.
 */
export function MasterKeyCard({ subtitle = 'Network creator console · Enclave' }: { subtitle?: string }) {
  const queryClient = useQueryClient();
  const hintId = useId();
  const { value, setValue, candidate, busy, submit } = useMasterKeyEntry({
    normalize: (typed) => typed.trim().toLowerCase(),
    // A malformed key cannot be right: say so without a round trip.
    wellFormed: (key) => {
      if (MASTER_KEY_PATTERN.test(key)) return true;
      toast(creatorToasts.malformedKey);
      return false;
    },
    check: async (key) => {
      queryClient.setQueryData(creatorQueryKeys.overview, await authenticateCreator(key));
      toast(creatorToasts.granted);
    },
    onRefused: (error) => {
      if (isApiError(error, 429)) toast(creatorToasts.rateLimited(error));
      else if (isApiError(error, 401) || isApiError(error, 403)) toast(creatorToasts.accessDenied);
      else if (isNetworkFailure(error)) toast(creatorToasts.authError);
      else toast({ ...creatorToasts.authError, description: isApiError(error) ? error.message : String(error) });
    },
  });

  return (
    <HeroPage icon={Crown} title="Creator Access" subtitle={subtitle} tone="creator">
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <KeyRound className="size-5 text-amber-300" aria-hidden="true" /> Master Key Authentication
          </CardTitle>
          <CardDescription>
            Only the network creator holds the master key. It stays in this tab&apos;s memory: a reload or a new tab asks for it again.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form className="grid gap-4" onSubmit={submit} noValidate>
            <div className="grid gap-1.5">
              <SecretField
                label="Master Key"
                secretName="master key"
                name="masterKey"
                placeholder="128-character hex"
                autoComplete="off"
                value={value}
                onChange={(e) => setValue(e.target.value)}
                disabled={busy}
                className="text-xs"
                aria-describedby={hintId}
              />
              <p id={hintId} className="flex justify-between text-xs text-muted">
                <span>128-character hex</span>
                <span className="tabular-nums">
                  {candidate.length}/{limits.masterKeyLength}
                </span>
              </p>
            </div>
            <p className="flex items-start gap-1.5 text-xs text-amber-300">
              <ShieldAlert className="mt-0.5 size-3.5 shrink-0" aria-hidden="true" />
              Every wrong key is recorded as a security event; repeated attempts block this address.
            </p>
            <Button type="submit" size="lg" className="w-full" disabled={!candidate || busy}>
              {busy ? <Loader2 className="animate-spin" aria-hidden="true" /> : <Crown aria-hidden="true" />}
              {busy ? 'Authenticating…' : 'Access Console'}
            </Button>
          </form>
        </CardContent>
      </Card>
      <p className="text-center text-sm text-muted">
        Not the creator?{' '}
        <Link href="/" className="text-accent underline-offset-4 hover:underline">
          Back to the network
        </Link>
      </p>
    </HeroPage>
  );
}
