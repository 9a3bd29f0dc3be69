import { Badge } from '../../components/ui/Badge';

type Severity = 'low' | 'medium' | 'high' | 'critical';

const tones = { low: 'neutral', medium: 'warning', high: 'danger', critical: 'danger' } as const;

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <Badge tone={tones[severity]} data-severity={severity} className={severity === 'critical' ? 'font-bold uppercase' : undefined}>
      {severity}
    </Badge>
  );
}
