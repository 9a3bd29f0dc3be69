import { AlertTriangle, ClipboardCopy, LogIn } from 'lucide-react';
import { Button } from '../components/ui/Button';
import { copyToClipboard } from '../components/ui/copy-to-clipboard';
import { loginToasts } from './login-texts';
import { SecretField } from './SecretField';

type NewTokenPanelProps = { accessToken: string; onContinue: () => void };

/** Shows the freshly generated access token once: the only copy anywhere. */
export function NewTokenPanel({ accessToken, onContinue }: NewTokenPanelProps) {
  function copy() {
    return copyToClipboard(accessToken, { copied: loginToasts.copied, failed: loginToasts.copyFailed });
  }

  return (
    <div className="grid gap-4">
      <div className="flex items-end gap-2">
        <div className="flex-1">
          <SecretField label="Your Access Token" secretName="token" value={accessToken} readOnly className="text-xs" />
        </div>
        <Button variant="secondary" size="icon" className="mb-0.5 h-10 w-10" aria-label="Copy token" onClick={copy}>
          <ClipboardCopy aria-hidden="true" />
        </Button>
      </div>
      <div role="alert" className="flex gap-3 rounded-lg border border-red-500/50 bg-red-950/50 p-3 text-sm text-red-100">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-red-400" aria-hidden="true" />
        <p>
          <strong className="font-semibold">This is the only copy of your access token.</strong> It is not stored
          anywhere else and cannot be reset. If you lose it, your account and your messages are unrecoverable.
        </p>
      </div>
      <Button size="lg" className="w-full" onClick={onContinue}>
        <LogIn aria-hidden="true" /> Continue to Login
      </Button>
    </div>
  );
}
