import { Users } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { TableFrame } from '../components/ui/TableFrame';
import { formatDate, plural } from '../lib/format';
import { useAdminGroups } from './use-admin-keys';

/** A group's id without its prefix, cut to its first block: enough to tell rows apart. */
const shortGroupId = (id: string) => id.replace(/^group:/, '').slice(0, 8);

/**
 * The private groups of the network: how many, how large, since when. Their names are sealed for
 * their members and the member lists are theirs, so neither is shown here (docs/security.md §4).
 */
export function PrivateGroupsCard() {
  const groups = useAdminGroups();
  const list = groups.data ?? [];
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Users className="size-5 text-accent" aria-hidden="true" /> Private groups
        </CardTitle>
        <CardDescription>
          {groups.isSuccess ? `${plural(list.length, 'group')} on this network. ` : null}
          Names and members are visible to the groups&apos; own members only.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {groups.isPending ? <p className="text-sm text-muted">Loading groups…</p> : null}
        {groups.isError ? (
          <p role="alert" className="text-sm text-danger">
            Failed to load the private groups. Use Refresh to try again.
          </p>
        ) : null}
        {groups.isSuccess && list.length === 0 ? (
          <p className="rounded-lg border border-dashed border-border p-6 text-center text-sm text-muted">
            No private groups yet. Members create them from the chat.
          </p>
        ) : null}
        {list.length > 0 ? (
          <TableFrame className="max-h-96 overflow-y-auto rounded-lg border border-border">
            <table className="w-full text-sm" aria-label="Private groups">
              <thead className="bg-surface-raised text-xs text-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Group
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    Members
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Created
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((group) => (
                  <tr key={group.id} className="border-t border-border">
                    <td className="px-3 py-2 font-mono text-xs" title={group.id}>
                      {shortGroupId(group.id)}
                    </td>
                    <td className="px-3 py-2 text-right tabular-nums">{group.memberCount}</td>
                    <td className="px-3 py-2">{formatDate(group.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        ) : null}
      </CardContent>
    </Card>
  );
}
