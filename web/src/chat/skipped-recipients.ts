import type { SkippedRecipient } from '@enclave/client';

/** The warning's text, naming each member left out. */
export function skippedWarning(skipped: readonly SkippedRecipient[]): string | null {
  if (!skipped.length) return null;
  const names = skipped.map((s) => s.username).sort((a, b) => a.localeCompare(b));
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const verb = names.length === 1 ? 'has' : 'have';
  return `${list} ${verb} published keys this app cannot use, so your messages here are not encrypted for them and they cannot read them.`;
}
