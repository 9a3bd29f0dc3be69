import type { AccessKey } from '@enclave/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Ban, Copy } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { copyToClipboard } from '../components/ui/copy-to-clipboard';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { revokeKeys } from '../net/admin-api';
import { adminToasts } from './admin-texts';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { formatDate, formatUsd, shortKey } from '../lib/format';
import { refreshKeys, useUnusedKeys } from './use-admin-keys';

/** Keys awaiting a confirmed revocation: one, or every key listed. */
type PendingRevocation = { ids: string[]; single: AccessKey | null };

/** Short form of a key for buttons' names: the first 8 and the last 4 characters. */
const keyName = (key: string) => shortKey(key, 4);

function copyKey(key: string): Promise<void> {
  return copyToClipboard(key, { copied: adminToasts.copied, failed: adminToasts.copyFailed });
}

/** The first 20 keys that can still be sold, with copy and revoke. */
export function AvailableKeysList() {
  const queryClient = useQueryClient();
  const keys = useUnusedKeys();
  const [pending, setPending] = useState<PendingRevocation | null>(null);
  const revoke = useMutation({
    mutationFn: revokeKeys,
    onSuccess: (count) => {
      toast(adminToasts.revoked(count));
      setPending(null);
      void refreshKeys(queryClient);
    },
    onError: (error) => {
      toast(adminToasts.revocationFailed(isApiError(error) ? error.serverMessage : null));
      setPending(null);
    },
  });
  const list = keys.data ?? [];

  return (
    <Card className="min-w-0">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle>Available Keys</CardTitle>
          <CardDescription>The first 20 unused keys, oldest first. Canary keys are never listed.</CardDescription>
        </div>
        <Button
          variant="danger"
          size="sm"
          disabled={list.length === 0 || revoke.isPending}
          onClick={() => setPending({ ids: list.map((k) => k.id), single: null })}
        >
          <Ban aria-hidden="true" /> Revoke all listed
        </Button>
      </CardHeader>
      <CardContent>
        {keys.isPending ? <p className="text-sm text-muted">Loading keys…</p> : null}
        {keys.isError ? (
          <p role="alert" className="text-sm text-danger">
            Failed to load access keys.
          </p>
        ) : null}
        {keys.isSuccess && list.length === 0 ? (
          <p className="rounded-lg border border-dashed border-border p-6 text-center text-sm text-muted">
            No keys available for sale. Generate a batch to fill the list.
          </p>
        ) : null}
        {list.length > 0 ? (
          <ul aria-label="Available keys" className="grid gap-2">
            {list.map((key) => (
              <li key={key.id} className="grid gap-2 rounded-lg border border-border bg-background/60 p-3">
                <code className="break-all font-mono text-xs text-foreground" data-access-key={key.key}>
                  {key.key}
                </code>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <div className="flex flex-wrap items-center gap-1.5 text-xs text-muted">
                    <Badge>{key.purchaseId ?? 'No purchase ID'}</Badge>
                    <Badge tone="accent">{key.salePrice === null ? 'No price set' : formatUsd(key.salePrice)}</Badge>
                    <span>Expires {formatDate(key.expiresAt)}</span>
                  </div>
                  <div className="flex gap-1.5">
                    <Button variant="secondary" size="sm" aria-label={`Copy key ${keyName(key.key)}`} onClick={() => void copyKey(key.key)}>
                      <Copy aria-hidden="true" /> Copy
                    </Button>
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`Revoke key ${keyName(key.key)}`}
                      disabled={revoke.isPending}
                      onClick={() => setPending({ ids: [key.id], single: key })}
                    >
                      <Ban aria-hidden="true" /> Revoke
                    </Button>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        ) : null}
      </CardContent>
      <ConfirmDialog
        open={pending !== null}
        title={pending?.single ? 'Revoke this key?' : `Revoke all ${pending?.ids.length ?? 0} listed keys?`}
        description={
          <>
            {pending?.single ? <code className="block break-all font-mono text-xs text-foreground">{pending.single.key}</code> : null}
            Revocation is permanent: a revoked key can never be validated or redeemed, even if it was already handed to a buyer.
          </>
        }
        confirmLabel={pending?.single ? 'Revoke key' : 'Revoke all'}
        busy={revoke.isPending}
        onConfirm={() => pending && revoke.mutate(pending.ids)}
        onCancel={() => setPending(null)}
      />
    </Card>
  );
}
