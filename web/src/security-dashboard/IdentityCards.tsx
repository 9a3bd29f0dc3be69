import { Fingerprint, ShieldAlert, ShieldCheck, Users } from 'lucide-react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import type { Session } from '../auth/auth-context';
import { emptyTexts } from './security-texts';
import type { PinRow } from './status-checks';
import { useOwnFingerprint } from './use-security-data';

/** The member's own fingerprint (docs/security.md §5), from the keys derived locally at sign-in. */
export function FingerprintCard({ session }: { session: Session }) {
  const own = useOwnFingerprint(session);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Fingerprint className="size-5 text-accent" aria-hidden="true" /> Your fingerprint
        </CardTitle>
        <CardDescription>
          Half of the safety number you share with each contact: their browser shows it as your fingerprint.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <p aria-label="Your fingerprint" className="font-mono text-sm leading-relaxed break-words text-foreground">
          {own.data ?? (own.error ? 'Could not compute the fingerprint.' : 'Computing…')}
        </p>
      </CardContent>
    </Card>
  );
}

type ContactsCardProps = {
  rows: readonly PinRow[] | undefined;
  error: unknown;
  /** Opens the safety number of a listed contact. */
  onShowSafetyNumber: (row: PinRow) => void;
};

/** Contacts pinned in this browser, changed keys first. */
export function ContactsCard({ rows, error, onShowSafetyNumber }: ContactsCardProps) {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Users className="size-5 text-accent" aria-hidden="true" /> Pinned contacts
        </CardTitle>
        <CardDescription>
          The first fingerprint this browser saw for each member. A changed one may mean someone is intercepting; compare your safety number
          with them.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {rows === undefined ? (
          <p className="text-sm text-muted">{error ? emptyTexts.loadFailed : 'Loading…'}</p>
        ) : rows.length === 0 ? (
          <p className="text-sm text-muted">
            No contact pinned in this browser yet: pins are made when you first see a member in the chat.
          </p>
        ) : (
          <ul aria-label="Pinned contacts" className="grid gap-2">
            {rows.map((row) => (
              <li key={row.id} className="grid gap-1 rounded-lg border border-border bg-background/40 p-2 text-sm">
                <span className="flex items-center justify-between gap-2">
                  <span className="font-medium">{row.username}</span>
                  {row.changed ? (
                    <Badge tone="danger">
                      <ShieldAlert aria-hidden="true" /> Key changed
                    </Badge>
                  ) : row.current === null ? (
                    <Badge>Not listed</Badge>
                  ) : row.verified ? (
                    <Badge tone="success">
                      <ShieldCheck aria-hidden="true" /> Verified
                    </Badge>
                  ) : (
                    <Badge tone="success">Matches pin</Badge>
                  )}
                </span>
                <span className="font-mono text-xs break-words text-muted" title="Pinned fingerprint">
                  {row.pinned}
                </span>
                {row.current === null ? null : (
                  <Button
                    variant="outline"
                    size="sm"
                    className="justify-self-start"
                    title={`Safety number with ${row.username}`}
                    onClick={() => onShowSafetyNumber(row)}
                  >
                    <Fingerprint aria-hidden="true" /> Safety number
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
