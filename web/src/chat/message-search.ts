/**
 * Search over the messages this tab has decrypted (docs/security.md: plaintext lives only in
 * memory, so there is no index to keep: a search is a scan of what the store holds).
 */
import type { ConversationView, DecryptResult } from '@enclave/client';
import type { Message } from '@enclave/protocol';

/** At most this many results are listed, newest first. */
export const MAX_SEARCH_HITS = 50;

export type SearchHit = { message: Message; text: string };

/** Compatibility-composed and lower-cased: "É" typed or pasted in either Unicode form finds "é", "ﬁ" finds "fi". */
export function normalizeForSearch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

// The normalized form of each text, made once: texts repeat from one keystroke to the next.
const normalized = new Map<string, string>();

function normalizedText(text: string): string {
  let found = normalized.get(text);
  if (found === undefined) {
    found = normalizeForSearch(text);
    // Bounded: a long session's texts come and go.
    if (normalized.size > 10_000) normalized.clear();
    normalized.set(text, found);
  }
  return found;
}

/**
 * The messages whose text as shown (the latest edit's, else the decrypted one) holds `query`,
 * newest first; none for a blank query. A text edited away is not found.
 */
export function searchMessages(
  messages: readonly Message[],
  results: ReadonlyMap<number, DecryptResult>,
  query: string,
  annotations: ConversationView['annotations'] = new Map(),
): { hits: SearchHit[]; total: number } {
  const needle = normalizeForSearch(query.trim());
  const hits: SearchHit[] = [];
  let total = 0;
  if (!needle) return { hits, total };
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    const result = message && results.get(message.id);
    // Only what decrypted and verified: warnings and unreadable messages have no text to find.
    if (!message || result?.status !== 'ok') continue;
    const text = annotations.get(message.id)?.edit?.text ?? result.text;
    if (!normalizedText(text).includes(needle)) continue;
    total += 1;
    if (hits.length < MAX_SEARCH_HITS) hits.push({ message, text });
  }
  return { hits, total };
}
