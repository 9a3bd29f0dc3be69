import { keyStatusSchema, type KeyStatus } from '@enclave/protocol';
import { Database, Search } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { toast } from '../components/ui/toast-store';
import { formatDate, formatDateTime, formatUsd } from '../lib/format';
import { isCreatorAuthFailure, useAccessKeys } from './creator-queries';
import { creatorToasts } from './creator-toasts';
import { KeyLabel } from './KeyLabel';
import { KeyStatusBadge } from './KeyStatusBadge';
import { EmptyState, PanelError, PanelLoading } from './panels/PanelCard';
import { TableFrame } from '../components/ui/TableFrame';

/** Wait for a pause in typing before asking the server. */
const SEARCH_DEBOUNCE_MS = 300;

/** Every key the network has issued, canaries included, with who redeemed it. Filtered and paged on the server. */
export function AccessKeyDatabase() {
  const statusId = useId();
  const searchId = useId();
  const titleId = useId();
  const [status, setStatus] = useState<KeyStatus | ''>('');
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');

  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [search]);

  const keys = useAccessKeys({ status: status || undefined, q: q || undefined });

  useEffect(() => {
    if (keys.error && !isCreatorAuthFailure(keys.error)) toast(creatorToasts.keysLoadFailed(keys.error));
  }, [keys.error]);

  const list = keys.keys;
  const filtered = status !== '' || q !== '';

  return (
    <Card role="region" aria-labelledby={titleId}>
      <div className="flex flex-wrap items-end justify-between gap-4 border-b border-border p-5">
        <div className="grid gap-1">
          <h2 id={titleId} className="flex items-center gap-2 text-lg font-semibold tracking-tight">
            <Database className="size-5 text-accent" aria-hidden="true" /> Access-Key Database
          </h2>
          <p className="text-sm text-muted">
            Every key issued, with its status, sale and the member who redeemed it.{' '}
            {keys.data ? (
              <span data-key-count={keys.total}>
                {keys.total} {filtered ? 'matching' : 'in total'}.
              </span>
            ) : null}
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <div className="grid gap-1.5">
            <Label htmlFor={statusId}>Status</Label>
            <select
              id={statusId}
              value={status}
              onChange={(e) => {
                const parsed = keyStatusSchema.safeParse(e.target.value);
                setStatus(parsed.success ? parsed.data : '');
              }}
              className="h-10 rounded-md border border-border bg-background px-2 text-sm text-foreground focus:border-accent focus:outline-none"
            >
              <option value="">All statuses</option>
              {keyStatusSchema.options.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor={searchId}>Search</Label>
            <div className="relative">
              <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted" aria-hidden="true" />
              <Input
                id={searchId}
                type="search"
                className="w-64 pl-9"
                placeholder="Purchase ID or username"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
            </div>
          </div>
        </div>
      </div>
      <div className="p-5">
        {keys.isPending ? (
          <PanelLoading what="the key database" />
        ) : keys.isError ? (
          <PanelError error={keys.error} what="the key database" onRetry={() => void keys.refetch()} />
        ) : list.length === 0 ? (
          filtered ? (
            <EmptyState title="No matching keys">No key has this status or a purchase ID or username containing “{q}”.</EmptyState>
          ) : (
            <EmptyState title="No keys issued yet">Generate access keys to sell them; they appear here.</EmptyState>
          )
        ) : (
          <div className="grid gap-3">
            <TableFrame className="rounded-lg border border-border">
              <table className="w-full text-sm" aria-label="Access keys">
                <thead className="bg-surface-raised text-xs text-muted">
                  <tr>
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Key
                    </th>
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Status
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
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Redeemed
                    </th>
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Member
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((k) => (
                    <tr key={k.id} data-key-id={k.id} data-key={k.key} className="border-t border-border">
                      <td className="whitespace-nowrap px-3 py-2">
                        <KeyLabel accessKey={k} />
                      </td>
                      <td className="px-3 py-2">
                        <KeyStatusBadge status={k.status} />
                      </td>
                      <td className="px-3 py-2 text-muted">{k.purchaseId ?? '—'}</td>
                      <td className="px-3 py-2 text-right tabular-nums text-muted">{formatUsd(k.salePrice)}</td>
                      <td className="whitespace-nowrap px-3 py-2 text-muted" title={formatDateTime(k.generatedAt)}>
                        {formatDate(k.generatedAt)}
                      </td>
                      <td className="whitespace-nowrap px-3 py-2 text-muted">{formatDate(k.expiresAt, 'never')}</td>
                      <td className="whitespace-nowrap px-3 py-2 text-muted" title={formatDateTime(k.usedAt)}>
                        {formatDate(k.usedAt, '—')}
                      </td>
                      <td className="px-3 py-2" data-col="member">
                        {k.username ?? <span className="text-muted">—</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
            <ShowMoreKeys keys={keys} />
          </div>
        )}
      </div>
    </Card>
  );
}

/** Loads a key list's next page, saying how many of how many are shown; nothing at the end. */
export function ShowMoreKeys({ keys }: { keys: ReturnType<typeof useAccessKeys> }) {
  if (!keys.hasNextPage) return null;
  return (
    <Button
      variant="ghost"
      size="sm"
      className="justify-self-start"
      disabled={keys.isFetchingNextPage}
      onClick={() => void keys.fetchNextPage()}
    >
      {keys.isFetchingNextPage ? 'Loading…' : `Show more (${keys.keys.length} of ${keys.total} shown)`}
    </Button>
  );
}
