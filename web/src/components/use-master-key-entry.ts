import { useState, type FormEvent } from 'react';
import { setMasterKey } from '../net/creator-session';

type MasterKeyEntryOptions = {
  /** The key to send, from what was typed; trimmed by default. */
  normalize?: (typed: string) => string;
  /** False refuses the key without a round trip; it says why itself. */
  wellFormed?: (key: string) => boolean;
  /** Asks the server; resolves once the key was accepted and what came back is stored. */
  check: (key: string) => Promise<void>;
  /** Says why the server refused the key or could not be asked. */
  onRefused: (error: unknown) => void;
};

/**
 * The master-key sign-in shared by /admin and /super-admin: the typed key, whether a check is
 * running, and the submit handler. An accepted key is kept in this tab's memory only
 * (creator-session.ts), which switches the screen to its panel; a refused one lets the visitor
 * try again.
 */
export function useMasterKeyEntry({ normalize = (typed) => typed.trim(), wellFormed, check, onRefused }: MasterKeyEntryOptions) {
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const candidate = normalize(value);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy || !candidate) return;
    if (wellFormed && !wellFormed(candidate)) return;
    setBusy(true);
    try {
      await check(candidate);
      setMasterKey(candidate);
    } catch (error) {
      setBusy(false);
      onRefused(error);
    }
  }

  return { value, setValue, candidate, busy, submit };
}
