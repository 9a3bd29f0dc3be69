import { generateKeysRequestSchema, limits, type AccessKey, type GenerateKeysRequest } from '@enclave/protocol';
import { ClipboardCopy, KeyRound } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/Button';
import { copyToClipboard } from '../../components/ui/copy-to-clipboard';
import { Input, Label } from '../../components/ui/Input';
import { toast } from '../../components/ui/toast-store';
import { formatDate, formatUsd } from '../../lib/format';
import { generateRequestBody, initialGenerateForm, type GenerateForm } from '../../lib/generate-form';
import { generateKeys } from '../../net/creator-api';
import { useCreatorAction } from '../creator-queries';
import { creatorToasts } from '../creator-toasts';
import { PanelCard } from './PanelCard';

export function GenerateKeys() {
  const ids = { quantity: useId(), days: useId(), purchase: useId(), price: useId(), canary: useId() };
  const [form, setForm] = useState<GenerateForm>(initialGenerateForm);
  const [generated, setGenerated] = useState<AccessKey[]>([]);
  const set = (patch: Partial<GenerateForm>) => setForm((f) => ({ ...f, ...patch }));

  const generate = useCreatorAction({
    run: (request: GenerateKeysRequest) => generateKeys(request),
    success: (keys) => creatorToasts.keysGenerated(keys.length),
    failure: (error) => creatorToasts.generationFailed(error),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = generateKeysRequestSchema.safeParse(generateRequestBody(form));
    if (!parsed.success) return void toast(creatorToasts.generationInvalid(parsed.error.issues[0]?.message ?? 'Check the form'));
    generate.mutate(parsed.data, { onSuccess: (keys) => setGenerated(keys) });
  }

  function copyAll() {
    const text = generated.map((k) => k.key).join('\n');
    return copyToClipboard(text, { copied: creatorToasts.keysCopied(generated.length), failed: creatorToasts.keysCopyFailed });
  }

  return (
    <PanelCard
      title="Generate Access Keys"
      description="New one-time invite keys for sale. Give a batch a purchase ID to find it later in the key database."
    >
      <form className="grid gap-4 md:grid-cols-2 xl:grid-cols-4" onSubmit={submit} noValidate>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.quantity}>Quantity</Label>
          <Input
            id={ids.quantity}
            type="number"
            inputMode="numeric"
            min={limits.keyQuantityMin}
            max={limits.keyQuantityMax}
            value={form.quantity}
            onChange={(e) => set({ quantity: e.target.value })}
          />
          <p className="text-xs text-muted">
            {limits.keyQuantityMin} to {limits.keyQuantityMax}
          </p>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.days}>Expiration (days)</Label>
          <Input id={ids.days} type="number" inputMode="numeric" min={0} value={form.expirationDays} onChange={(e) => set({ expirationDays: e.target.value })} />
          <p className="text-xs text-muted">Empty or 0: the keys never expire</p>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.purchase}>Purchase ID</Label>
          <Input id={ids.purchase} placeholder="Optional, e.g. TICKET-1042" maxLength={128} value={form.purchaseId} onChange={(e) => set({ purchaseId: e.target.value })} />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.price}>Sale price (USD)</Label>
          <Input id={ids.price} type="number" inputMode="decimal" min={0} step="0.01" placeholder="Optional" value={form.salePrice} onChange={(e) => set({ salePrice: e.target.value })} />
        </div>
        <label htmlFor={ids.canary} className="flex items-start gap-2 text-sm md:col-span-2 xl:col-span-3">
          <input id={ids.canary} type="checkbox" className="mt-0.5 size-4 accent-amber-500" checked={form.canary} onChange={(e) => set({ canary: e.target.checked })} />
          <span>
            Canary keys <span className="text-muted">— never listed for sale; anyone who tries one raises a critical security event.</span>
          </span>
        </label>
        <Button type="submit" className="xl:justify-self-end" disabled={generate.isPending}>
          <KeyRound aria-hidden="true" /> {generate.isPending ? 'Generating…' : 'Generate Keys'}
        </Button>
      </form>

      {generated.length > 0 ? (
        <div className="mt-5 grid gap-2" aria-label="Generated keys" role="group">
          <div className="flex items-center justify-between gap-2">
            <p className="text-sm">
              <strong>{generated.length}</strong> new {generated[0]?.isCanary ? 'canary ' : ''}keys
              {generated[0]?.purchaseId ? ` · purchase ID ${generated[0].purchaseId}` : ''} · price {formatUsd(generated[0]?.salePrice ?? null)} · expire{' '}
              {formatDate(generated[0]?.expiresAt ?? null, 'never')}
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
