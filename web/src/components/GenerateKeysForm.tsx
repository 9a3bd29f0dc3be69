/**
 * The "Generate Access Keys" form of /admin and of the creator console: the fields, their checks
 * and the submit button. Each screen brings its own chrome around it, and its own mutation of
 * `generateKeys` (admin-api.ts), which says how generation went in that screen's toasts and
 * refreshes what that screen shows.
 */
import { limits, type AccessKey, type GenerateKeysRequest } from '@enclave/protocol';
import type { UseMutationResult } from '@tanstack/react-query';
import { Sparkles } from 'lucide-react';
import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { cn } from '../lib/cn';
import { generateRequestFrom, initialGenerateForm, type GenerateForm } from '../lib/generate-form';
import { Button } from './ui/Button';
import { Input, Label } from './ui/Input';
import { toast, type ToastInput } from './ui/toast-store';

/** What makes the keys: the screen's mutation of `generateKeys`. */
export type GenerateKeysMutation = Pick<UseMutationResult<AccessKey[], Error, GenerateKeysRequest>, 'mutate' | 'isPending'>;

/**
 * 'column': one field under the other, for /admin's narrow column. 'wide': the fields side by
 * side, for a panel as wide as the page (the creator console).
 */
export type GenerateKeysLayout = 'column' | 'wide';

const layouts: Record<GenerateKeysLayout, { form: string; numbers: string; canary: string; button: string }> = {
  column: { form: 'grid gap-4', numbers: '', canary: '', button: '' },
  wide: {
    form: 'grid gap-4 md:grid-cols-2 xl:grid-cols-4',
    numbers: 'md:col-span-2',
    canary: 'md:col-span-2 xl:col-span-3',
    button: 'xl:justify-self-end',
  },
};

type GenerateKeysFormProps = {
  generate: GenerateKeysMutation;
  /** The toast for a form that makes no valid request, given what to fix. */
  invalidToast: (message: string) => ToastInput;
  /** Called with the new keys once the server made them. */
  onGenerated?: (keys: AccessKey[]) => void;
  layout?: GenerateKeysLayout;
};

export function GenerateKeysForm({ generate, invalidToast, onGenerated, layout = 'column' }: GenerateKeysFormProps) {
  const ids = {
    quantity: useId(),
    days: useId(),
    daysHint: useId(),
    purchase: useId(),
    price: useId(),
    canary: useId(),
    canaryHint: useId(),
  };
  const [form, setForm] = useState<GenerateForm>(initialGenerateForm);
  const classes = layouts[layout];

  const set = <K extends keyof GenerateForm>(field: K, value: GenerateForm[K]) => setForm((f) => ({ ...f, [field]: value }));
  /** The value and the change handler of one of the text inputs. */
  const bind = (field: Exclude<keyof GenerateForm, 'canary'>) => ({
    value: form[field],
    onChange: (e: ChangeEvent<HTMLInputElement>) => set(field, e.target.value),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (generate.isPending) return;
    const result = generateRequestFrom(form);
    if (!result.ok) return void toast(invalidToast(result.message));
    generate.mutate(result.request, { onSuccess: (keys) => onGenerated?.(keys) });
  }

  return (
    <form className={classes.form} onSubmit={submit} noValidate>
      <div className={cn('grid gap-2', classes.numbers)}>
        <div className="grid grid-cols-2 gap-3">
          <div className="grid content-start gap-1.5">
            <Label htmlFor={ids.quantity}>Quantity</Label>
            <Input
              id={ids.quantity}
              type="number"
              inputMode="numeric"
              min={limits.keyQuantityMin}
              max={limits.keyQuantityMax}
              step={1}
              required
              {...bind('quantity')}
            />
          </div>
          <div className="grid content-start gap-1.5">
            <Label htmlFor={ids.days}>Expiration (days)</Label>
            <Input
              id={ids.days}
              type="number"
              inputMode="numeric"
              min={0}
              max={3650}
              step={1}
              aria-describedby={ids.daysHint}
              {...bind('expirationDays')}
            />
          </div>
        </div>
        <p id={ids.daysHint} className="text-xs text-muted">
          {limits.keyQuantityMin}–{limits.keyQuantityMax} keys. Empty or 0 days: the keys never expire.
        </p>
      </div>
      <div className="grid content-start gap-1.5">
        <Label htmlFor={ids.purchase}>Purchase ID (optional)</Label>
        <Input id={ids.purchase} maxLength={128} autoComplete="off" placeholder="e.g. batch-42" {...bind('purchaseId')} />
      </div>
      <div className="grid content-start gap-1.5">
        <Label htmlFor={ids.price}>Sale price in USD (optional)</Label>
        <Input id={ids.price} type="number" inputMode="decimal" min={0} step="0.01" placeholder="50" {...bind('salePrice')} />
      </div>
      <div className={cn('flex items-start gap-2', classes.canary)}>
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
      <Button type="submit" className={classes.button} disabled={generate.isPending}>
        <Sparkles aria-hidden="true" /> {generate.isPending ? 'Generating…' : 'Generate Keys'}
      </Button>
    </form>
  );
}
