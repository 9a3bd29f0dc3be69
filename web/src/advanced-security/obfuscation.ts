/**
 * The "Obfuscation Status" figures (docs/spec.md §2) from the network's security state: each named
 * as the specification names it, with a value that says what it counts and a hint on where it
 * comes from (docs/security.md §10). Pure, so each is unit-tested.
 */
import type { SecurityState } from '@enclave/protocol';
import { monitorTexts, obfuscationTexts as t } from './advanced-security-texts';

export type ObfuscationFigure = {
  key: keyof typeof t.names;
  name: string;
  /** "—" until the network's figures arrive. */
  value: string;
  hint: string;
};

export function obfuscationFigures(metrics: SecurityState | undefined): ObfuscationFigure[] {
  const states = monitorTexts.polymorphicStates;
  const values: Record<keyof typeof t.names, string> = metrics
    ? {
        layers: String(metrics.encryptionLayers),
        decoys: t.decoyFigure(metrics.decoyHits, metrics.decoyEndpoints),
        dynamicKeys: String(metrics.dynamicKeys),
        polymorphic: metrics.messageKeys > 0 ? states.active : states.inactive,
      }
    : { layers: '—', decoys: '—', dynamicKeys: '—', polymorphic: '—' };
  return (Object.keys(t.names) as (keyof typeof t.names)[]).map((key) => ({
    key,
    name: t.names[key],
    value: values[key],
    hint: t.hints[key],
  }));
}
