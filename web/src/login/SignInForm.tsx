import { checkAccessToken } from '@enclave/crypto';
import { AlertTriangle, Lock, Unlock } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useAuth } from '../auth/auth-context';
import { ClientRateLimitError, UI_LOGIN_ACTION, isWrongToken, loginAllowed, recordLoginFailure } from '../auth/client-rate-limit';
import { Button } from '../components/ui/Button';
import { toast } from '../components/ui/toast-store';
import { reportRateLimitExceeded, reportRefusedToken } from '../security/tamper-runtime';
import { loginFailureToast } from './login-errors';
import { loginToasts } from './login-texts';
import { SecretField } from './SecretField';

type SignInFormProps = {
  initialToken: string;
  onSwitchToCreate: () => void;
};

export function SignInForm({ initialToken, onSwitchToCreate }: SignInFormProps) {
  const { login, loading } = useAuth();
  const [, navigate] = useLocation();
  const [token, setToken] = useState(initialToken);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (loading) return;
    // Courtesy checks in the specification's order (docs/spec.md §5); the server decides for real.
    // Going over the limit and a token that fails the integrity check are tamper detections (§4).
    // Only wrong tokens count: the server's refusal, or a token of a forged format. A too-short
    // token (a paste cut off), an error of the network or the account, or this limit's own refusal
    // is no guess, so the right token after any of those still gets in.
    if (!loginAllowed(UI_LOGIN_ACTION)) {
      reportRateLimitExceeded();
      return void toast(loginToasts.rateLimited);
    }
    const candidate = token.trim();
    const check = checkAccessToken(candidate);
    if (!check.ok) {
      if (check.reason === 'too_short') return void toast(loginToasts.tokenTooShort);
      recordLoginFailure(UI_LOGIN_ACTION);
      reportRefusedToken(candidate);
      return void toast(loginToasts.tokenIntegrity);
    }
    try {
      await login(candidate);
      navigate('/chat');
    } catch (error) {
      if (isWrongToken(error)) recordLoginFailure(UI_LOGIN_ACTION);
      if (error instanceof ClientRateLimitError) reportRateLimitExceeded();
      toast(loginFailureToast(error));
    }
  }

  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <SecretField
        label="Access Token"
        secretName="token"
        name="accessToken"
        placeholder="Enter your 64-character access token"
        value={token}
        onChange={(e) => setToken(e.target.value)}
        disabled={loading}
      />
      <p className="-mt-2 flex items-center gap-1.5 text-xs text-amber-300">
        <AlertTriangle className="size-3.5 shrink-0" aria-hidden="true" />
        Failed attempts trigger an immediate data wipe.
      </p>
      <Button type="submit" size="lg" className="w-full" disabled={loading}>
        {loading ? <Unlock className="animate-pulse" aria-hidden="true" /> : <Lock aria-hidden="true" />}
        Decrypt &amp; Access
      </Button>
      <button type="button" className="text-center text-sm text-accent underline-offset-4 hover:underline" onClick={onSwitchToCreate}>
        Have an access key? Validate it to create your vault
      </button>
    </form>
  );
}
