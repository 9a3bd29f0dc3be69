import type { KeyStatus } from '@enclave/protocol';
import { Badge } from '../components/ui/Badge';

const tones = { active: 'success', used: 'accent', revoked: 'danger', expired: 'neutral' } as const satisfies Record<KeyStatus, string>;

export function KeyStatusBadge({ status }: { status: KeyStatus }) {
  return (
    <Badge tone={tones[status]} data-key-status={status}>
      {status}
    </Badge>
  );
}
