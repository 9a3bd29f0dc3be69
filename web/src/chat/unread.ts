/**
 * What a member has read, kept in this browser only (the server never learns it). Per
 * conversation: the newest message id read, and the ids of others' messages that came after.
 * Pure functions over an immutable state; use-unread.ts keeps it in localStorage. The typing
 * indicator's wording is here too, to be tested alike.
 */
import { conversationIdSchema, isGroupConversation } from '@enclave/protocol';

export type ConversationReads = { readUpTo: number; unread: readonly number[] };
export type ReadState = Readonly<Record<string, ConversationReads>>;

/** What the member has in front of them: the open conversation, and whether the tab is visible. */
export type ViewState = { conversationId: string; visible: boolean };

/** A conversation is in view when it is open and the tab visible; unread counts and notifications both ask. */
export function isInView(view: ViewState, conversationId: string): boolean {
  return view.visible && view.conversationId === conversationId;
}

/** Ids kept per conversation: enough for a count, bounded in storage. */
export const MAX_UNREAD_IDS = 500;

const none: ConversationReads = { readUpTo: 0, unread: [] };

/** Adds others' messages not yet read; the same state when nothing changes. */
export function noteUnread(state: ReadState, conversationId: string, ids: readonly number[]): ReadState {
  const current = state[conversationId] ?? none;
  const known = new Set(current.unread);
  const fresh = ids.filter((id) => id > current.readUpTo && !known.has(id));
  if (fresh.length === 0) return state;
  const unread = [...current.unread, ...new Set(fresh)].sort((a, b) => a - b).slice(-MAX_UNREAD_IDS);
  return { ...state, [conversationId]: { readUpTo: current.readUpTo, unread } };
}

/** Everything up to `upTo` is read; the same state when nothing changes. */
export function markRead(state: ReadState, conversationId: string, upTo: number): ReadState {
  const current = state[conversationId];
  if (current && current.readUpTo >= upTo && !current.unread.some((id) => id <= upTo)) return state;
  const readUpTo = Math.max(current?.readUpTo ?? 0, upTo);
  return { ...state, [conversationId]: { readUpTo, unread: (current?.unread ?? []).filter((id) => id > readUpTo) } };
}

/** Messages that no longer exist (expired, deleted) are unread no more; the same state when none was. */
export function forgetUnread(state: ReadState, conversationId: string, ids: readonly number[]): ReadState {
  const current = state[conversationId];
  const gone = new Set(ids);
  if (!current?.unread.some((id) => gone.has(id))) return state;
  return { ...state, [conversationId]: { readUpTo: current.readUpTo, unread: current.unread.filter((id) => !gone.has(id)) } };
}

/**
 * Only the groups the member still belongs to keep their counts: a group left or removed from can
 * no longer be opened to read them. The same state when nothing is dropped.
 */
export function keepGroups(state: ReadState, groupIds: readonly string[]): ReadState {
  const kept = new Set(groupIds);
  const dropped = Object.keys(state).filter((id) => isGroupConversation(id) && !kept.has(id));
  if (dropped.length === 0) return state;
  return Object.fromEntries(Object.entries(state).filter(([id]) => !dropped.includes(id)));
}

export function unreadCount(state: ReadState, conversationId: string): number {
  return state[conversationId]?.unread.length ?? 0;
}

export function totalUnread(state: ReadState): number {
  return Object.values(state).reduce((sum, c) => sum + c.unread.length, 0);
}

/** The message the "New messages" divider goes before, or null when all is read. */
export function firstUnreadId(state: ReadState, conversationId: string): number | null {
  return state[conversationId]?.unread[0] ?? null;
}

/** "(3) Enclave": the total in front of the page's own title. */
export function titleWithCount(base: string, count: number): string {
  return count > 0 ? `(${count > 99 ? '99+' : count}) ${base}` : base;
}

/** Badges stay narrow. */
export function countLabel(count: number): string {
  return count > 99 ? '99+' : String(count);
}

/** What the typing indicator says, for the names of those typing in the open conversation. */
export function typingText(names: readonly string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return 'Several members are typing…';
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** Reads a stored state, dropping whatever does not have its shape (storage is the member's to edit). */
export function parseReadState(text: string | null): ReadState {
  let raw: unknown;
  try {
    raw = text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const state: Record<string, ConversationReads> = {};
  for (const [id, value] of Object.entries(raw as Record<string, unknown>)) {
    const { readUpTo, unread } = (value ?? {}) as { readUpTo?: unknown; unread?: unknown };
    if (!(readUpTo === 0 || isId(readUpTo)) || !Array.isArray(unread)) continue;
    if (!conversationIdSchema.safeParse(id).success) continue;
    state[id] = {
      readUpTo,
      unread: unread
        .filter(isId)
        .filter((u) => u > readUpTo)
        .sort((a, b) => a - b)
        .slice(-MAX_UNREAD_IDS),
    };
  }
  return state;
}
