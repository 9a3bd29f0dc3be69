/**
 * One conversation as the chat store holds it, and the snapshot of it the screens read: messages
 * by server id, what decrypting each gave, the timeline's events, and what the member is sending.
 */
import type { DisappearingTimer, Message, TimelineEvent } from '@enclave/protocol';
import { foldAnnotations, rowsOf, type Folded } from './annotations';
import type { DecryptResult } from './message-decryptor';

/**
 * A message of this member's not stored yet: being sent, or failed after the client's own resends
 * (then kept, with its text, until the member retries or discards it: never silently lost).
 */
export type Outgoing = { localId: string; text: string; state: 'sending' | 'failed' };

export type ConversationView = {
  /** Oldest first; annotations (reactions, edits) are not rows: they are folded into `annotations`. */
  messages: readonly Message[];
  /** What the reactions and edits held say of each message, by its id (annotations.ts). */
  annotations: ReadonlyMap<number, Folded>;
  results: ReadonlyMap<number, DecryptResult>;
  /** Timer changes and deletion notes, oldest first; they go between the messages by id. */
  events: readonly TimelineEvent[];
  /** The conversation's disappearing-message timer, as the last answer or frame said. */
  disappearingSeconds: DisappearingTimer;
  status: 'idle' | 'loading' | 'ready' | 'error';
  hasOlder: boolean;
  loadingOlder: boolean;
  /** In the order they were written. */
  outgoing: readonly Outgoing[];
};

/** The store's state of one conversation; the screens read only its {@link ConversationView}. */
export type Conversation = {
  id: string;
  receiverId: string;
  messages: Map<number, Message>;
  results: Map<number, DecryptResult>;
  events: Map<number, TimelineEvent>;
  disappearingSeconds: DisappearingTimer;
  /**
   * The newest id the timer is known as of: a timer event's, or the newest item of the answer that
   * gave it. An answer whose items are all older (made before a frame that came first) leaves it.
   */
  timerAsOf: number;
  status: ConversationView['status'];
  hasOlder: boolean;
  loadingOlder: boolean;
  outgoing: Outgoing[];
  /** The highest id up to which the conversation is known to hold everything (chat-store.ts). */
  cursor: number;
  /** Ids of the items drawn from the member's cache that no server answer has confirmed yet (history-cache.ts). */
  fromCache: Set<number>;
  /** Loads of this conversation, one after another. */
  queue: Promise<void>;
  view: ConversationView;
  /** Results set since the last view was made. */
  resultsChanged: boolean;
};

/** The view of a conversation never opened. */
export const emptyView: ConversationView = {
  messages: [],
  annotations: new Map(),
  results: new Map(),
  events: [],
  disappearingSeconds: 0,
  status: 'idle',
  hasOlder: false,
  loadingOlder: false,
  outgoing: [],
};

/** A conversation being loaded for the first time. */
export function newConversation(id: string, receiverId: string): Conversation {
  return {
    id,
    receiverId,
    messages: new Map(),
    results: new Map(),
    events: new Map(),
    disappearingSeconds: 0,
    timerAsOf: 0,
    status: 'loading',
    hasOlder: false,
    loadingOlder: false,
    outgoing: [],
    cursor: 0,
    fromCache: new Set(),
    queue: Promise.resolve(),
    view: emptyView,
    resultsChanged: false,
  };
}

/**
 * Moves the timer to the newest of these timer changes, unless it is known as of a later id; then
 * to an answer's timer, the server's as of the cursor the answer moved to. A change newer than that
 * cursor wins: the answer was made before the change and arrived after its frame.
 */
export function takeTimer(conversation: Conversation, events: readonly TimelineEvent[], answer?: DisappearingTimer): void {
  for (const e of events) {
    if (e.event.kind !== 'timer_set' || e.id <= conversation.timerAsOf) continue;
    conversation.disappearingSeconds = e.event.seconds;
    conversation.timerAsOf = e.id;
  }
  if (answer === undefined || conversation.cursor < conversation.timerAsOf) return;
  conversation.disappearingSeconds = answer;
  conversation.timerAsOf = conversation.cursor;
}

/**
 * A new snapshot for the screens. The message list is sorted and the results copied again only
 * when they changed: rows whose message and result stay the same objects are not rendered again.
 */
export function nextView(conversation: Conversation, changed: { messages?: boolean }): ConversationView {
  const previous = conversation.view;
  const view: ConversationView = {
    messages: changed.messages ? rowsOf(conversation.messages.values()) : previous.messages,
    annotations:
      changed.messages || conversation.resultsChanged ? foldAnnotations(conversation.messages, conversation.results) : previous.annotations,
    results: conversation.resultsChanged ? new Map(conversation.results) : previous.results,
    events: changed.messages ? [...conversation.events.values()].sort((a, b) => a.id - b.id) : previous.events,
    disappearingSeconds: conversation.disappearingSeconds,
    status: conversation.status,
    hasOlder: conversation.hasOlder,
    loadingOlder: conversation.loadingOlder,
    outgoing: conversation.outgoing,
  };
  conversation.resultsChanged = false;
  conversation.view = view;
  return view;
}
