import { errorCodes, limits, usernameSchema } from '@enclave/protocol';
import { CheckCircle2, KeyRound, ShieldAlert, ShieldCheck } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useAuth } from '../auth/auth-context';
import { Button } from '../components/ui/Button';
import { Input, Label } from '../components/ui/Input';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { validateInviteKey } from '../net/http';
import { SignUpAgreement } from './Disclaimers';
import { registrationFailureToast } from './login-errors';
import { loginToasts, registrationClosedExplanation } from './login-texts';

type Step = 'key' | 'username';

type CreateVaultFormProps = {
  initialKey: string;
  /** Registration succeeded: the page shows the new token (kept there so a tab switch cannot lose it). */
  onRegistered: (accessToken: string) => void;
};

/** Create-vault flow: key entry → validate → username → register (the page then shows the token). */
export function CreateVaultForm({ initialKey, onRegistered }: CreateVaultFormProps) {
  const { register, loading } = useAuth();
  const keyId = useId();
  const usernameId = useId();
  const [step, setStep] = useState<Step>('key');
  const [inviteKey, setInviteKey] = useState(initialKey);
  const [username, setUsername] = useState('');
  const [validating, setValidating] = useState(false);
  // Emergency mode: the server takes no member now, whatever the key (said before a username is chosen).
  const [closed, setClosed] = useState(false);
  const key = inviteKey.trim();

  async function validate(event: FormEvent) {
    event.preventDefault();
    if (validating) return;
    if (key.length < limits.tokenLength) return void toast(loginToasts.keyTooShort);
    setValidating(true);
    try {
      const result = await validateInviteKey(key);
      setClosed(result.registrationClosed === true);
      if (result.valid) {
        toast(loginToasts.keyValid);
        setStep('username');
      } else if (result.registrationClosed) {
        toast(loginToasts.registrationClosed);
      } else {
        toast(loginToasts.keyInvalid(result.reason));
      }
    } catch {
      toast(loginToasts.validationFailed);
    } finally {
      setValidating(false);
    }
  }

  async function generate(event: FormEvent) {
    event.preventDefault();
    if (loading) return;
    if (!username.trim()) return void toast(loginToasts.usernameRequired);
    const parsed = usernameSchema.safeParse(username);
    if (!parsed.success) return void toast(loginToasts.registrationFailed(parsed.error.issues[0]?.message ?? null));
    try {
      const token = await register(key, parsed.data);
      toast(loginToasts.registered);
      onRegistered(token);
    } catch (error) {
      toast(registrationFailureToast(error));
      // The key went bad meanwhile (used by someone else, revoked): start again from the key.
      if (isApiError(error, 409, errorCodes.keyInvalid)) setStep('key');
    }
  }

  return (
    <div className="grid gap-4">
      <SignUpAgreement />
      <form className="grid gap-2" onSubmit={validate} noValidate>
        <Label htmlFor={keyId}>Access Key</Label>
        <Input
          id={keyId}
          name="inviteKey"
          className="font-mono text-xs"
          placeholder="Enter your 64-character access key"
          autoComplete="off"
          spellCheck={false}
          value={inviteKey}
          onChange={(e) => setInviteKey(e.target.value)}
          readOnly={step !== 'key'}
          aria-describedby={`${keyId}-count`}
        />
        <p id={`${keyId}-count`} className="text-xs text-muted">
          {key.length}/{limits.tokenLength} characters
        </p>
        {closed ? (
          <p
            role="alert"
            className="flex items-start gap-2 rounded-lg border border-amber-500/50 bg-amber-950/40 p-3 text-sm text-amber-100"
          >
            <ShieldAlert className="mt-0.5 size-4 shrink-0 text-amber-300" aria-hidden="true" />
            <span>{registrationClosedExplanation}</span>
          </p>
        ) : null}
        {step === 'key' ? (
          <Button type="submit" className="w-full" disabled={key.length < limits.tokenLength || validating}>
            <ShieldCheck aria-hidden="true" /> {validating ? 'Validating…' : 'Validate Access Key'}
          </Button>
        ) : (
          <p className="flex items-center gap-1.5 text-sm text-emerald-300">
            <CheckCircle2 className="size-4" aria-hidden="true" /> Access key validated
          </p>
        )}
      </form>
      {step === 'username' ? (
        <form className="grid gap-2" onSubmit={generate} noValidate>
          <Label htmlFor={usernameId}>Username</Label>
          <Input
            id={usernameId}
            name="username"
            placeholder="Choose your username"
            autoComplete="username"
            maxLength={limits.usernameMaxChars}
            required
            aria-required="true"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            disabled={loading}
          />
          <Button type="submit" className="w-full" disabled={loading}>
            <KeyRound aria-hidden="true" /> {loading ? 'Generating…' : 'Generate Secure Keys'}
          </Button>
        </form>
      ) : null}
    </div>
  );
}
