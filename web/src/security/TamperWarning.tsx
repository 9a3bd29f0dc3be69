import { AlertTriangle } from 'lucide-react';
import { escalation } from './constants';
import { warningTexts } from './tamper-texts';
import { useThreatState } from './threat-state';

/**
 * Tells the member on the login screen what the detector found that escalates nothing (most
 * likely an extension's doing, docs/security.md §10), so that they decide whether to type their
 * token here. What does escalate has its own answer: decoys, or the breach screen.
 */
export function TamperWarning() {
  const found = useThreatState().detections.filter((d) => escalation(d.severity) === 'record');
  if (found.length === 0) return null;
  return (
    <div role="status" className="flex gap-3 rounded-lg border border-amber-500/40 bg-amber-950/40 p-3 text-sm text-amber-100">
      <AlertTriangle className="mt-0.5 size-4 shrink-0 text-amber-400" aria-hidden="true" />
      <div className="grid min-w-0 gap-2">
        <p>
          <strong className="font-semibold">{warningTexts.title}</strong> {warningTexts.body}
        </p>
        <details className="text-xs text-amber-200/90">
          <summary className="cursor-pointer select-none">{warningTexts.details(found.length)}</summary>
          <ul className="mt-1 grid list-disc gap-0.5 pl-4">
            {found.map((d, i) => (
              <li key={`${d.timestamp}-${i}`} className="break-words">
                {d.description}
              </li>
            ))}
          </ul>
        </details>
      </div>
    </div>
  );
}
