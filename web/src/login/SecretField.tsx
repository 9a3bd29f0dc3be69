import { Eye, EyeOff } from 'lucide-react';
import { useId, useState, type InputHTMLAttributes } from 'react';
import { Button } from '../components/ui/Button';
import { Input, Label } from '../components/ui/Input';
import { cn } from '../lib/cn';

type SecretFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id'> & {
  label: string;
  /** What the show/hide toggle names, e.g. "token" gives "Show token"; kept short so it never matches the field's own label. */
  secretName: string;
};

/** A secret shown masked by default, with a show/hide toggle. */
export function SecretField({ label, secretName, className, ...inputProps }: SecretFieldProps) {
  const id = useId();
  const [visible, setVisible] = useState(false);
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <div className="relative">
        <Input
          id={id}
          type={visible ? 'text' : 'password'}
          autoComplete="off"
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          className={cn('pr-11 font-mono', className)}
          {...inputProps}
        />
        <Button
          variant="ghost"
          size="icon"
          className="absolute right-0.5 top-1/2 -translate-y-1/2"
          aria-label={`${visible ? 'Hide' : 'Show'} ${secretName}`}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
        </Button>
      </div>
    </div>
  );
}
