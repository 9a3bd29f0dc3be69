import type { AccessKey } from '@enclave/protocol';
import { Ban, ShieldX } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../components/ui/Button';
import { toast } from '../../components/ui/toast-store';
import { revokeKeys } from '../../net/admin-api';
import { revokeActiveKeys } from '../../net/creator-api';
import { ConfirmDialog } from '../../components/ui/ConfirmDialog';
import { formatDate, formatUsd, shortKey } from '../../lib/format';
import { isCreatorAuthFailure, useAccessKeys, useCreatorAction } from '../creator-queries';
import { creatorToasts } from '../creator-toasts';
import { ShowMoreKeys } from '../AccessKeyDatabase';
import { KeyLabel } from '../KeyLabel';
import { EmptyState, PanelCard, PanelError, PanelLoading, UpdatedAt } from './PanelCard';
import { TableFrame } from '../../components/ui/TableFrame';

/**
 * Revokes unused keys on the server, one, several (of the pages loaded) or all at once (revoke-all
 * asks first, and the server revokes every active key, loaded or not). Permanent.
 */
export function KeyRevocation() {
  const keys = useAccessKeys({ status: 'active' });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirmAll, setConfirmAll] = useState(false);

  useEffect(() => {
    if (keys.error && !isCreatorAuthFailure(keys.error)) toast(creatorToasts.revocationLoadFailed);
  }, [keys.error]);

  const active = keys.keys;
  // Selection follows the list: keys revoked elsewhere drop out of it.
  const chosen = active.filter((k) => selected.has(k.id)).map((k) => k.id);

  /** `all`: every active key, on the server; else these ids. */
  const revoke = useCreatorAction({
    run: (ids: string[] | 'all') => (ids === 'all' ? revokeActiveKeys() : revokeKeys(ids)),
    success: (revoked, ids) =>
      ids !== 'all' && ids.length === 1
        ? creatorToasts.keyRevoked(revoked)
        : creatorToasts.bulkRevoked(revoked, ids === 'all' ? keys.total : ids.length),
    failure: (error) => creatorToasts.revocationFailed(error),
  });

  function run(ids: string[] | 'all') {
    revoke.mutate(ids, {
      onSuccess: () => setSelected((s) => (ids === 'all' ? new Set() : new Set([...s].filter((id) => !ids.includes(id))))),
      onSettled: () => setConfirmAll(false),
    });
  }

  function toggle(id: string) {
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  const allChosen = active.length > 0 && chosen.length === active.length;

  return (
    <PanelCard
      title="Key Revocation"
      description="Revoked keys can never be redeemed; revocation is permanent and done on the server. Only active, unused keys can be revoked."
      aside={<UpdatedAt at={keys.dataUpdatedAt} fetching={keys.isFetching} />}
    >
      {keys.isPending ? (
        <PanelLoading what="active keys" />
      ) : keys.isError ? (
        <PanelError error={keys.error} what="access keys" onRetry={() => void keys.refetch()} />
      ) : active.length === 0 ? (
        <EmptyState title="No active keys">Every key is used, revoked or expired. Generate new keys to sell.</EmptyState>
      ) : (
        <div className="grid gap-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                className="size-4 accent-emerald-500"
                checked={allChosen}
                onChange={() => setSelected(allChosen ? new Set() : new Set(active.map((k) => k.id)))}
              />
              Select all {active.length === keys.total ? '' : `${active.length} shown of `}
              {keys.total} active keys
            </label>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" disabled={chosen.length === 0 || revoke.isPending} onClick={() => run(chosen)}>
                <Ban aria-hidden="true" /> Revoke selected ({chosen.length})
              </Button>
              <Button variant="danger" size="sm" disabled={revoke.isPending} onClick={() => setConfirmAll(true)}>
                <ShieldX aria-hidden="true" /> Revoke all active keys
              </Button>
            </div>
          </div>
          <TableFrame className="rounded-lg border border-border">
            <table className="w-full text-sm" aria-label="Active keys">
              <thead className="bg-surface-raised text-xs text-muted">
                <tr>
                  <th scope="col" className="w-10 px-3 py-2">
                    <span className="sr-only">Select</span>
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Key
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Purchase ID
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    Price
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Generated
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Expires
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {active.map((k) => (
                  <RevocableRow
                    key={k.id}
                    accessKey={k}
                    checked={selected.has(k.id)}
                    busy={revoke.isPending}
                    onToggle={() => toggle(k.id)}
                    onRevoke={() => run([k.id])}
                  />
                ))}
              </tbody>
            </table>
          </TableFrame>
          <ShowMoreKeys keys={keys} />
        </div>
      )}
      <ConfirmDialog
        open={confirmAll}
        title={`Revoke all ${keys.total} active keys?`}
        description={
          <p>
            Every active, unused key (canary keys included) becomes unusable at once. Keys already sold but not yet redeemed stop working
            too. This cannot be undone.
          </p>
        }
        confirmLabel="Revoke all"
        busy={revoke.isPending}
        busyLabel="Working…"
        irreversible
        onCancel={() => setConfirmAll(false)}
        onConfirm={() => run('all')}
      />
    </PanelCard>
  );
}

type RevocableRowProps = { accessKey: AccessKey; checked: boolean; busy: boolean; onToggle: () => void; onRevoke: () => void };

function RevocableRow({ accessKey: k, checked, busy, onToggle, onRevoke }: RevocableRowProps) {
  return (
    <tr className="border-t border-border" data-revocable-key={k.id}>
      <td className="px-3 py-2">
        <input
          type="checkbox"
          className="size-4 accent-emerald-500"
          checked={checked}
          onChange={onToggle}
          aria-label={`Select key ${shortKey(k.key)}`}
        />
      </td>
      <td className="px-3 py-2">
        <KeyLabel accessKey={k} />
      </td>
      <td className="px-3 py-2 text-muted">{k.purchaseId ?? '—'}</td>
      <td className="px-3 py-2 text-right tabular-nums text-muted">{formatUsd(k.salePrice)}</td>
      <td className="px-3 py-2 text-muted">{formatDate(k.generatedAt)}</td>
      <td className="px-3 py-2 text-muted">{formatDate(k.expiresAt, 'never')}</td>
      <td className="px-3 py-2 text-right">
        <Button variant="outline" size="sm" disabled={busy} onClick={onRevoke} aria-label={`Revoke key ${shortKey(k.key)}`}>
          Revoke
        </Button>
      </td>
    </tr>
  );
}
