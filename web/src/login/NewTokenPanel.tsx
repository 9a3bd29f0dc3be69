import { AlertTriangle, ClipboardCopy, Download, LogIn } from 'lucide-react';
import { useId } from 'react';
import { Button } from '../components/ui/Button';
import { copyToClipboard } from '../components/ui/copy-to-clipboard';
import { loginToasts } from './login-texts';
import { SecretField } from './SecretField';
import { downloadToken } from './token-saving';

type NewTokenPanelProps = {
  accessToken: string;
  /** The member confirmed they saved the token; Continue stays disabled until then. */
  saved: boolean;
  onSavedChange: (saved: boolean) => void;
  onContinue: () => void;
};

/** Shows the freshly generated access token once: the only copy anywhere. */
export function NewTokenPanel({ accessToken, saved, onSavedChange, onContinue }: NewTokenPanelProps) {
  const savedId = useId();

  function copy() {
    return copyToClipboard(accessToken, { copied: loginToasts.copied, failed: loginToasts.copyFailed });
  }

  return (
    <div className="grid gap-4">
      <SecretField label="Your Access Token" secretName="token" value={accessToken} readOnly className="text-xs" />
      <div className="grid grid-cols-2 gap-2">
        <Button variant="secondary" onClick={copy}>
          <ClipboardCopy aria-hidden="true" /> Copy token
        </Button>
        <Button variant="secondary" onClick={() => downloadToken(accessToken)}>
          <Download aria-hidden="true" /> Download as file
        </Button>
      </div>
      <div role="alert" className="flex gap-3 rounded-lg border border-red-500/50 bg-red-950/50 p-3 text-sm text-red-100">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-red-400" aria-hidden="true" />
        <p>
          <strong className="font-semibold">This is the only copy of your access token.</strong> It is not stored anywhere else and cannot
          be reset. If you lose it, your account and your messages are unrecoverable.
        </p>
      </div>
      <div className="flex items-center gap-2 text-sm">
        <input
          id={savedId}
          type="checkbox"
          className="size-4 accent-accent-strong"
          checked={saved}
          onChange={(e) => onSavedChange(e.target.checked)}
        />
        <label htmlFor={savedId}>I have saved my access token</label>
      </div>
      <Button size="lg" className="w-full" onClick={onContinue} disabled={!saved}>
        <LogIn aria-hidden="true" /> Continue to Login
      </Button>
    </div>
  );
}
