/**
 * Search over the messages this tab has decrypted (docs/security.md: plaintext lives only in
 * memory, so there is no index to keep: a search is a scan of what the store holds).
 */
import type { DecryptResult } from '@enclave/client';
import type { Message } from '@enclave/protocol';

/** At most this many results are listed, newest first. */
export const MAX_SEARCH_HITS = 50;

export type SearchHit = { message: Message; text: string };

/** Compatibility-composed and lower-cased: "É" typed or pasted in either Unicode form finds "é", "ﬁ" finds "fi". */
export function normalizeForSearch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

// The normalized text of each result object, made once: the store keeps result objects as they are.
const normalized = new WeakMap<DecryptResult, string>();

function normalizedText(result: DecryptResult & { status: 'ok' }): string {
  let text = normalized.get(result);
  if (text === undefined) {
    text = normalizeForSearch(result.text);
    normalized.set(result, text);
  }
  return text;
}

/** The messages whose decrypted text holds `query`, newest first; none for a blank query. */
export function searchMessages(
  messages: readonly Message[],
  results: ReadonlyMap<number, DecryptResult>,
  query: string,
): { hits: SearchHit[]; total: number } {
  const needle = normalizeForSearch(query.trim());
  const hits: SearchHit[] = [];
  let total = 0;
  if (!needle) return { hits, total };
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    const result = message && results.get(message.id);
    // Only what decrypted and verified: warnings and unreadable messages have no text to find.
    if (!message || result?.status !== 'ok' || !normalizedText(result).includes(needle)) continue;
    total += 1;
    if (hits.length < MAX_SEARCH_HITS) hits.push({ message, text: result.text });
  }
  return { hits, total };
}
