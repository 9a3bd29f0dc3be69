import { Flame, Gauge, KeyRound, ListChecks, ShieldX } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../components/ui/Button';
import { ComplianceDashboard } from './panels/ComplianceDashboard';
import { GenerateKeys } from './panels/GenerateKeys';
import { KeyRevocation } from './panels/KeyRevocation';
import { RiskVisualizer } from './panels/RiskVisualizer';
import { SecurityHeatmap } from './panels/SecurityHeatmap';

/** The specification's five panels; one is open at a time (docs/spec.md §2). */
const panels = [
  { id: 'heatmap', label: 'Security Heatmap', icon: Flame, Panel: SecurityHeatmap },
  { id: 'threats', label: 'Risk Visualizer', icon: Gauge, Panel: RiskVisualizer },
  { id: 'compliance', label: 'Compliance Dashboard', icon: ListChecks, Panel: ComplianceDashboard },
  { id: 'keys', label: 'Key Revocation', icon: ShieldX, Panel: KeyRevocation },
  { id: 'generate', label: 'Generate Access Keys', icon: KeyRound, Panel: GenerateKeys },
] as const;

type PanelId = (typeof panels)[number]['id'];

/**
 * Toggle buttons and the open panel. A closed panel is unmounted, so its queries stop: the heatmap
 * and risk refresh only while they are on screen.
 */
export function SecurityPanels() {
  const [open, setOpen] = useState<PanelId | null>(null);
  const current = panels.find((p) => p.id === open);
  return (
    <section aria-label="Security and keys" className="grid grid-cols-1 gap-4">
      <div className="flex flex-wrap gap-2" role="toolbar" aria-label="Panels">
        {panels.map(({ id, label, icon: Icon }) => (
          <Button
            key={id}
            variant={open === id ? 'primary' : 'secondary'}
            aria-pressed={open === id}
            aria-controls={open === id ? `panel-${id}` : undefined}
            onClick={() => setOpen((o) => (o === id ? null : id))}
          >
            <Icon aria-hidden="true" /> {label}
          </Button>
        ))}
      </div>
      {current ? (
        <div id={`panel-${current.id}`}>
          <current.Panel />
        </div>
      ) : null}
    </section>
  );
}
