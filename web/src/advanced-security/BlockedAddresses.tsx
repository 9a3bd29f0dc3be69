import type { BlockedIp } from '@enclave/protocol';
import { ShieldBan } from 'lucide-react';
import { Button } from '../components/ui/Button';
import { useCreatorAction } from '../creator/creator-queries';
import { EmptyState, PanelCard, PanelError, PanelLoading } from '../creator/panels/PanelCard';
import { formatDateTime, formatRelative } from '../lib/format';
import { unblockIp } from '../net/creator-api';
import { blockedTexts as t, securityToasts } from './advanced-security-texts';
import { TableFrame } from '../components/ui/TableFrame';

type BlockedAddressesProps = {
  blocked: BlockedIp[] | undefined;
  error: unknown;
  onRetry: () => void;
};

/** Beyond the specification: every block, so that the creator can always undo one. */
export function BlockedAddresses({ blocked, error, onRetry }: BlockedAddressesProps) {
  const unblock = useCreatorAction({
    run: (ip: string) => unblockIp(ip),
    success: (_r, ip) => securityToasts.unblocked(ip),
    failure: (e) => securityToasts.unblockFailed(e),
  });
  const c = t.columns;

  return (
    <PanelCard title={t.title} description={t.description}>
      {blocked === undefined ? (
        error ? (
          <PanelError error={error} what={t.what} onRetry={onRetry} />
        ) : (
          <PanelLoading what={t.what} />
        )
      ) : blocked.length === 0 ? (
        <EmptyState title={t.empty}>{t.emptyNote}</EmptyState>
      ) : (
        <TableFrame className="rounded-lg border border-border">
          <table className="w-full text-sm" aria-label={t.title}>
            <thead className="bg-surface-raised text-xs text-muted">
              <tr>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  {c.ip}
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  {c.reason}
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  {c.since}
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  {c.expires}
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  {c.hits}
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  <span className="sr-only">{c.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {blocked.map((b) => (
                <tr key={b.ip} className="border-t border-border" data-blocked-ip={b.ip}>
                  <td className="px-3 py-2 font-mono text-xs">
                    <span className="inline-flex items-center gap-1.5">
                      <ShieldBan className="size-3.5 text-red-400" aria-hidden="true" /> {b.ip}
                    </span>
                  </td>
                  <td className="px-3 py-2" data-col="reason">
                    {b.reason}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 text-muted" title={formatDateTime(b.createdAt)}>
                    {formatRelative(b.createdAt)}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 text-muted" data-col="expires">
                    {b.expiresAt ? formatDateTime(b.expiresAt) : t.untilUnblocked}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums" data-col="hits">
                    {b.hits}
                  </td>
                  <td className="px-3 py-2 text-right">
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={unblock.isPending}
                      aria-label={t.unblockLabel(b.ip)}
                      onClick={() => unblock.mutate(b.ip)}
                    >
                      {t.unblock}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </PanelCard>
  );
}
