import type { AccessKey } from '@enclave/protocol';
import { ClipboardCopy } from 'lucide-react';
import { useState } from 'react';
import { GenerateKeysForm } from '../../components/GenerateKeysForm';
import { Button } from '../../components/ui/Button';
import { copyToClipboard } from '../../components/ui/copy-to-clipboard';
import { formatDate, formatUsd } from '../../lib/format';
import { generateKeys } from '../../net/admin-api';
import { useCreatorAction } from '../creator-queries';
import { creatorToasts } from '../creator-toasts';
import { PanelCard } from './PanelCard';

/** The console's key generation: the shared form in a panel, then the new keys with "Copy all". */
export function GenerateKeys() {
  const [generated, setGenerated] = useState<AccessKey[]>([]);

  const generate = useCreatorAction({
    run: generateKeys,
    success: (keys) => creatorToasts.keysGenerated(keys.length),
    failure: (error) => creatorToasts.generationFailed(error),
  });

  function copyAll() {
    const text = generated.map((k) => k.key).join('\n');
    return copyToClipboard(text, { copied: creatorToasts.keysCopied(generated.length), failed: creatorToasts.keysCopyFailed });
  }

  return (
    <PanelCard
      title="Generate Access Keys"
      description="New one-time invite keys for sale. Give a batch a purchase ID to find it later in the key database."
    >
      <GenerateKeysForm layout="wide" generate={generate} invalidToast={creatorToasts.generationInvalid} onGenerated={setGenerated} />

      {generated.length > 0 ? (
        <div className="mt-5 grid gap-2" aria-label="Generated keys" role="group">
          <div className="flex items-center justify-between gap-2">
            <p className="text-sm">
              <strong>{generated.length}</strong> new {generated[0]?.isCanary ? 'canary ' : ''}keys
              {generated[0]?.purchaseId ? ` · purchase ID ${generated[0].purchaseId}` : ''} · price{' '}
              {formatUsd(generated[0]?.salePrice ?? null)} · expire {formatDate(generated[0]?.expiresAt ?? null, 'never')}
            </p>
            <Button variant="secondary" size="sm" onClick={() => void copyAll()}>
              <ClipboardCopy aria-hidden="true" /> Copy all
            </Button>
          </div>
          <ol className="max-h-56 overflow-y-auto rounded-lg border border-border bg-background p-3 font-mono text-xs leading-6">
            {generated.map((k) => (
              <li key={k.id} data-generated-key={k.key} className="select-all break-all">
                {k.key}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </PanelCard>
  );
}
