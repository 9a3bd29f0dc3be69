import { limits } from '@enclave/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Sparkles } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { generateKeys } from '../net/admin-api';
import { adminToasts } from './admin-texts';
import { generateRequestFrom, initialGenerateForm, type GenerateForm } from '../lib/generate-form';
import { refreshKeys } from './use-admin-keys';

export function GenerateKeysForm() {
  const queryClient = useQueryClient();
  const ids = { quantity: useId(), days: useId(), daysHint: useId(), purchase: useId(), price: useId(), canary: useId(), canaryHint: useId() };
  const [form, setForm] = useState<GenerateForm>(initialGenerateForm);
  const mutation = useMutation({
    mutationFn: generateKeys,
    onSuccess: (keys) => {
      toast(adminToasts.generated(keys.length));
      void refreshKeys(queryClient);
    },
    onError: (error) => toast(adminToasts.generationFailed(isApiError(error) ? error.serverMessage : null)),
  });

  const set = <K extends keyof GenerateForm>(field: K, value: GenerateForm[K]) => setForm((f) => ({ ...f, [field]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    if (mutation.isPending) return;
    const result = generateRequestFrom(form);
    if (!result.ok) return void toast(adminToasts.generationFailed(result.message));
    mutation.mutate(result.request);
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Generate Access Keys</CardTitle>
        <CardDescription>One-time invite keys for a sale batch.</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-4" onSubmit={submit} noValidate>
          <div className="grid grid-cols-2 gap-3">
            <div className="grid gap-1.5">
              <Label htmlFor={ids.quantity}>Quantity</Label>
              <Input
                id={ids.quantity}
                type="number"
                inputMode="numeric"
                min={limits.keyQuantityMin}
                max={limits.keyQuantityMax}
                step={1}
                required
                value={form.quantity}
                onChange={(e) => set('quantity', e.target.value)}
              />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.days}>Expiration (days)</Label>
              <Input
                id={ids.days}
                type="number"
                inputMode="numeric"
                min={0}
                max={3650}
                step={1}
                aria-describedby={ids.daysHint}
                value={form.expirationDays}
                onChange={(e) => set('expirationDays', e.target.value)}
              />
            </div>
          </div>
          <p id={ids.daysHint} className="-mt-2 text-xs text-muted">
            {limits.keyQuantityMin}–{limits.keyQuantityMax} keys. Empty or 0 days: the keys never expire.
          </p>
          <div className="grid gap-1.5">
            <Label htmlFor={ids.purchase}>Purchase ID (optional)</Label>
            <Input
              id={ids.purchase}
              maxLength={128}
              autoComplete="off"
              placeholder="e.g. batch-42"
              value={form.purchaseId}
              onChange={(e) => set('purchaseId', e.target.value)}
            />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor={ids.price}>Sale price in USD (optional)</Label>
            <Input
              id={ids.price}
              type="number"
              inputMode="decimal"
              min={0}
              step="0.01"
              placeholder="50"
              value={form.salePrice}
              onChange={(e) => set('salePrice', e.target.value)}
            />
          </div>
          <div className="flex items-start gap-2">
            <input
              id={ids.canary}
              type="checkbox"
              className="mt-0.5 size-4 accent-amber-400"
              aria-describedby={ids.canaryHint}
              checked={form.canary}
              onChange={(e) => set('canary', e.target.checked)}
            />
            <div className="grid gap-0.5">
              <Label htmlFor={ids.canary}>Canary key</Label>
              <p id={ids.canaryHint} className="text-xs text-muted">
                A tripwire: never listed for sale; any attempt to validate or redeem it raises a critical security alert.
              </p>
            </div>
          </div>
          <Button type="submit" disabled={mutation.isPending}>
            <Sparkles aria-hidden="true" /> {mutation.isPending ? 'Generating…' : 'Generate Keys'}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
