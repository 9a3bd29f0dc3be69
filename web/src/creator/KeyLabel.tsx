import type { AccessKey } from '@enclave/protocol';
import { Badge } from '../components/ui/Badge';
import { shortKey } from '../lib/format';

/** A key in the console's tables: shortened, the full value in its title, and marked when it is a canary. */
export function KeyLabel({ accessKey: k }: { accessKey: AccessKey }) {
  return (
    <>
      <span className="font-mono text-xs" title={k.key}>
        {shortKey(k.key)}
      </span>{' '}
      {k.isCanary ? <Badge tone="warning">canary</Badge> : null}
    </>
  );
}
