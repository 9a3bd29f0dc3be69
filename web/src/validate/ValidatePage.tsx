import { limits, type ValidateKeyResponse } from '@enclave/protocol';
import { ArrowLeft, CheckCircle2, HelpCircle, ShieldAlert, ShieldCheck, ShoppingCart, XCircle } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { toast } from '../components/ui/toast-store';
import { COMMUNITY_INVITE_URL } from '../config';
import { formatDate, formatUsd } from '../lib/format';
import { isApiError } from '../net/api-error';
import { validateInviteKey } from '../net/http';
import { commonIssues, validateToasts } from './validate-texts';
import { registrationClosedExplanation } from '../login/login-texts';
import { HeroPage } from '../components/HeroPage';

/** A validation answer together with the exact key it was given for. */
type Checked = { key: string; response: ValidateKeyResponse };

/** /validate: anyone checks a purchased key before registering (the server rate-limits it per address). */
export function ValidatePage() {
  const id = useId();
  const countId = useId();
  const [, navigate] = useLocation();
  const [input, setInput] = useState('');
  const [checking, setChecking] = useState(false);
  const [checked, setChecked] = useState<Checked | null>(null);

  async function validate(event: FormEvent) {
    event.preventDefault();
    if (checking) return;
    // Keys are case-sensitive: only surrounding spaces are dropped.
    const key = input.trim();
    if (!key) return void toast(validateToasts.blank);
    setChecking(true);
    try {
      const response = await validateInviteKey(key);
      setChecked({ key, response });
      if (response.valid) toast(validateToasts.valid);
    } catch (error) {
      setChecked(null);
      toast(validateToasts.failed(isApiError(error) ? error.serverMessage : null));
    } finally {
      setChecking(false);
    }
  }

  return (
    <HeroPage
      icon={ShieldCheck}
      title="Validate Access Key"
      subtitle="Check a purchased key before you register. Checking does not use it up."
      width="xl"
    >
      <Card>
        <CardContent className="pt-6">
          <form className="grid gap-2" onSubmit={validate} noValidate>
            <Label htmlFor={id}>Access Key</Label>
            <Input
              id={id}
              name="accessKey"
              className="font-mono text-xs"
              placeholder="Enter your 64-character access key"
              maxLength={limits.tokenLength}
              autoComplete="off"
              autoCapitalize="off"
              spellCheck={false}
              aria-describedby={countId}
              value={input}
              onChange={(e) => {
                setInput(e.target.value);
                setChecked(null);
              }}
            />
            <p id={countId} className="text-xs text-muted">
              {input.length}/{limits.tokenLength} characters · case-sensitive
            </p>
            <Button type="submit" disabled={checking}>
              <ShieldCheck aria-hidden="true" /> {checking ? 'Validating…' : 'Validate'}
            </Button>
          </form>
        </CardContent>
      </Card>

      <div aria-live="polite">
        {checked ? (
          <ResultCard checked={checked} onProceed={(key) => navigate(`/login?mode=register&key=${encodeURIComponent(key)}`)} />
        ) : null}
      </div>

      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-base">
            <ShoppingCart className="size-4 text-accent" aria-hidden="true" /> Need a key?
          </CardTitle>
          <CardDescription>
            Keys are sold by authorized distributors. Open a ticket in the community server; staff handle the purchase and send you a key.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <PurchaseLink>Purchase Access Key</PurchaseLink>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-base">
            <HelpCircle className="size-4 text-accent" aria-hidden="true" /> Common issues
          </CardTitle>
        </CardHeader>
        <CardContent>
          <ul className="grid gap-3 text-sm">
            {commonIssues.map((issue) => (
              <li key={issue.title} className="grid gap-0.5">
                <span className="font-medium">{issue.title}</span>
                <span className="text-muted">{issue.detail}</span>
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>

      <Link href="/" className="inline-flex items-center justify-center gap-1.5 text-sm text-accent hover:underline">
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to login
      </Link>
    </HeroPage>
  );
}

/** Opens the community server's invite in a new tab, where keys are bought. */
function PurchaseLink({ children, variant = 'secondary' }: { children: string; variant?: 'secondary' | 'outline' }) {
  return (
    <Button asChild variant={variant} className="w-full">
      <a href={COMMUNITY_INVITE_URL} target="_blank" rel="noopener noreferrer">
        <ShoppingCart aria-hidden="true" /> {children}
      </a>
    </Button>
  );
}

function ResultCard({ checked, onProceed }: { checked: Checked; onProceed: (key: string) => void }) {
  const { key, response } = checked;
  if (response.registrationClosed) {
    return (
      <Card className="border-amber-500/50 bg-amber-950/30" role="region" aria-label="Validation result">
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-amber-200">
            <ShieldAlert className="size-5 text-amber-300" aria-hidden="true" /> Registration Closed
          </CardTitle>
          <CardDescription className="text-amber-100">{registrationClosedExplanation}</CardDescription>
        </CardHeader>
      </Card>
    );
  }
  if (!response.valid) {
    return (
      <Card className="border-red-500/50 bg-red-950/30" role="region" aria-label="Validation result">
        <CardHeader>
          <CardTitle className="flex items-center gap-2 text-red-200">
            <XCircle className="size-5 text-red-400" aria-hidden="true" /> Invalid Access Key
          </CardTitle>
          <CardDescription className="text-red-100">{response.reason}</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          <p className="text-sm text-muted">See the common issues below, or get a new key.</p>
          <PurchaseLink variant="outline">Buy a new key</PurchaseLink>
        </CardContent>
      </Card>
    );
  }
  const info = response.keyInfo;
  return (
    <Card className="border-emerald-500/50 bg-emerald-950/30" role="region" aria-label="Validation result">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-emerald-200">
          <CheckCircle2 className="size-5 text-emerald-400" aria-hidden="true" /> Valid Access Key
        </CardTitle>
        <CardDescription className="text-emerald-100">{response.reason}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {info ? (
          <dl className="grid grid-cols-3 gap-3 text-sm">
            <div className="grid gap-0.5">
              <dt className="text-xs text-muted">Generated</dt>
              <dd>{formatDate(info.generatedAt)}</dd>
            </div>
            <div className="grid gap-0.5">
              <dt className="text-xs text-muted">Expires</dt>
              <dd>{formatDate(info.expiresAt)}</dd>
            </div>
            <div className="grid gap-0.5">
              <dt className="text-xs text-muted">Price</dt>
              <dd>{info.salePrice === null ? 'Not recorded' : formatUsd(info.salePrice)}</dd>
            </div>
          </dl>
        ) : null}
        <Button onClick={() => onProceed(key)}>Proceed to Registration</Button>
      </CardContent>
    </Card>
  );
}
