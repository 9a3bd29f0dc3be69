import type { DecryptResult } from '@enclave/client';
import type { Message, TimelineEvent } from '@enclave/protocol';
import { AlertOctagon, Info, Lock, Timer, Trash2 } from 'lucide-react';
import { Fragment, memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { cn } from '../lib/cn';
import { dayKey, formatMessageTime } from '../lib/format';
import type { ConversationView } from '@enclave/client';
import { AttachmentView } from './AttachmentView';
import { eventText } from './disappearing';
import { JumpToLatest } from './JumpToLatest';
import { EditedMark, MessageWithExtras } from './MessageExtras';
import { MentionText } from './MentionText';
import { NewMessagesDivider } from './NewMessagesDivider';
import { OutgoingMessage, SentMark, type OutgoingActions } from './OutgoingMessage';
import { ReadMarkRow } from './ReadMarkRow';
import type { ReadMark } from './use-read-receipts';
import { timelineRows } from './suspended-gap';
import { SuspendedGap } from './SuspendedGap';
import { useUsers } from './use-users';

export const UNREADABLE_TEXT = '🔒 [Encrypted Message]';
export const BAD_SIGNATURE_TEXT = '⚠ Signature check failed: this message may have been forged or altered, so its content is not shown.';
export const UNVERIFIED_TEXT = "⚠ Sender's key changed — this message cannot be verified. Compare the safety number.";
export const REPLAYED_TEXT = '⚠ Replayed message — hidden';

/** Results shown as a warning in place of the text. */
const WARNINGS: Partial<Record<DecryptResult['status'], string>> = {
  bad_signature: BAD_SIGNATURE_TEXT,
  unverified: UNVERIFIED_TEXT,
  replayed: REPLAYED_TEXT,
};

type MessageListProps = {
  view: ConversationView;
  selfId: string;
  /** Display names: in a DM, whom each message was encrypted for. */
  dm: { selfName: string; peerName: string } | null;
  /** A private group: its note speaks of the group, not the channel. */
  inGroup?: boolean;
  onLoadOlder: () => void;
  outgoing: OutgoingActions;
  /** Where the "New messages" divider goes (use-unread.ts). */
  dividerBeforeId?: number | null;
  /** Asks to delete one of the member's own messages for everyone (kept stable: rows are memoized). */
  onDelete?: (message: Message) => void;
  /** A message chosen in the search: scrolled to and highlighted (a new object each time). */
  highlight?: { id: number } | null;
  /** In a DM or a small group, the member's own last message others have read: "Read" goes under it (use-read-receipts.ts). */
  readMark?: ReadMark | null;
};

/** Older messages load while the reader is within this many pixels of the top. */
const LOAD_OLDER_PX = 600;

/** Where the oldest row shown was, relative to the list's top: kept in place when older rows come above it. */
type Anchor = { id: string; top: number };

function oldestRowAnchor(el: HTMLElement): Anchor | null {
  const row = el.querySelector<HTMLElement>('[data-message-id]');
  if (!row?.dataset.messageId) return null;
  return { id: row.dataset.messageId, top: row.getBoundingClientRect().top - el.getBoundingClientRect().top };
}

export function MessageList({
  view,
  selfId,
  dm,
  inGroup = false,
  onLoadOlder,
  outgoing,
  dividerBeforeId = null,
  highlight = null,
  onDelete,
  readMark = null,
}: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const lastId = useRef<number | null>(null);
  const oldestShown = useRef<number | null>(null);
  const anchor = useRef<Anchor | null>(null);
  const newest = Math.max(view.messages.at(-1)?.id ?? 0, view.events.at(-1)?.id ?? 0) || null;
  const oldest = view.messages[0]?.id ?? null;
  // Names come from the member list by sender id (which the signature binds), never from the
  // name the server attaches to a message.
  const users = useUsers();
  const names = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u.username])), [users.data]);
  const joinedAt = users.data?.find((u) => u.id === selfId)?.joinedAt ?? null;
  // Read once per render: rows re-render when the day changes, not for every other reason.
  const today = dayKey(new Date());
  const { messages, results, events } = view;
  const selfName = dm?.selfName ?? null;
  const peerName = dm?.peerName ?? null;
  // The same rows while only the view's status changes (a page loading): React skips the list.
  const rows = useMemo(() => {
    // Messages and events share one id order; messages sent while the member was banned are one row.
    return timelineRows(messages, events, results, selfId, joinedAt).map((item) => {
      if (item.kind === 'suspended') return <SuspendedGap key={`s${item.messages[0]?.id}`} messages={item.messages} />;
      if (item.kind === 'event') {
        const { event } = item;
        const own = event.actorId === selfId;
        return (
          <EventItem
            key={`e${event.id}`}
            event={event}
            text={eventText(event.event, own ? 'You' : (names.get(event.actorId) ?? 'A member'), own)}
          />
        );
      }
      const { message } = item;
      const own = message.senderId === selfId;
      return (
        <Fragment key={message.id}>
          {message.id === dividerBeforeId ? <NewMessagesDivider /> : null}
          <MessageItem
            message={message}
            sender={names.get(message.senderId) ?? 'Unknown User'}
            result={results.get(message.id)}
            own={own}
            encryptedFor={selfName === null || peerName === null ? null : own ? peerName : selfName}
            today={today}
            onDelete={own ? onDelete : undefined}
            highlighted={message.id === highlight?.id}
          />
          {message.id === readMark?.messageId ? (
            <ReadMarkRow
              readAt={readMark.readAt}
              today={today}
              readers={inGroup ? readMark.by.map((id) => names.get(id) ?? 'A member') : null}
            />
          ) : null}
        </Fragment>
      );
    });
  }, [
    messages,
    events,
    results,
    names,
    selfId,
    joinedAt,
    selfName,
    peerName,
    today,
    dividerBeforeId,
    onDelete,
    highlight,
    readMark,
    inGroup,
  ]);

  function loadOlder() {
    const el = scroller.current;
    if (!el || !view.hasOlder || view.loadingOlder) return;
    anchor.current = oldestRowAnchor(el);
    onLoadOlder();
  }

  function onScroll() {
    const el = scroller.current;
    if (el && el.scrollTop < LOAD_OLDER_PX) loadOlder();
  }

  // Older rows came in above: the row that was oldest stays where the reader saw it (no jump).
  // Chromium's scroll anchoring may already have kept it there; then this moves nothing.
  useLayoutEffect(() => {
    const el = scroller.current;
    const before = anchor.current;
    if (!el || oldest === oldestShown.current) return;
    oldestShown.current = oldest;
    anchor.current = null;
    const row = before && el.querySelector<HTMLElement>(`[data-message-id="${before.id}"]`);
    if (before && row) el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - before.top;
  }, [oldest]);

  useEffect(() => {
    if (!highlight) return;
    const row = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${highlight.id}"]`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
  }, [highlight]);

  // Follow new messages at the bottom, but leave the reader alone when they scrolled up or when
  // older messages were prepended.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || newest === lastId.current) return;
    const wasFirstFill = lastId.current === null;
    lastId.current = newest;
    const nearBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 160;
    if (wasFirstFill || nearBottom) el.scrollTop = el.scrollHeight;
  });

  // The member just wrote a message: it is shown being sent at the bottom, wherever they were.
  const outgoingCount = view.outgoing.length;
  const lastOutgoingCount = useRef(outgoingCount);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && outgoingCount > lastOutgoingCount.current) el.scrollTop = el.scrollHeight;
    lastOutgoingCount.current = outgoingCount;
  }, [outgoingCount]);

  return (
    // Focusable so keyboard users can scroll it; role="log" announces new messages politely.
    <div
      ref={scroller}
      tabIndex={0}
      className="min-h-0 flex-1 overflow-y-auto px-3 py-3 sm:px-4"
      aria-label="Conversation history"
      role="log"
      onScroll={onScroll}
    >
      {dm ? null : (
        <p className="mb-3 flex items-start gap-2 rounded-md border border-border bg-surface-raised/60 p-2 text-xs text-muted">
          <Info className="mt-0.5 size-3.5 shrink-0" aria-hidden="true" />
          Messages sent before you joined this {inGroup ? 'group' : 'channel'} were not encrypted for you and cannot be read.
        </p>
      )}
      {view.hasOlder ? (
        <div className="mb-3 flex justify-center">
          {/* Scrolling up loads them too; the button is the keyboard's and screen readers' way. */}
          <Button variant="outline" size="sm" onClick={loadOlder} disabled={view.loadingOlder}>
            {view.loadingOlder ? 'Loading…' : 'Load older messages'}
          </Button>
        </div>
      ) : null}
      {view.status === 'loading' && view.messages.length === 0 ? (
        <p className="py-6 text-center text-sm text-muted">Loading messages…</p>
      ) : null}
      {view.status === 'ready' && view.messages.length === 0 && view.events.length === 0 ? (
        <p className="py-6 text-center text-sm text-muted">No messages yet. Say hello — it is end-to-end encrypted.</p>
      ) : null}
      <ol className="grid gap-2">
        {rows}
        {view.outgoing.map((o) => (
          <OutgoingMessage key={o.localId} message={o} sender={names.get(selfId) ?? 'You'} actions={outgoing} />
        ))}
      </ol>
      <JumpToLatest scroller={scroller} newest={newest} />
    </div>
  );
}

type MessageItemProps = {
  message: Message;
  sender: string;
  result: DecryptResult | undefined;
  own: boolean;
  encryptedFor: string | null;
  /** Today's {@link dayKey}: a message of today shows its time alone. */
  today: string;
  onDelete: ((message: Message) => void) | undefined;
  /** Chosen in the search. */
  highlighted: boolean;
};

/**
 * Memoized: every prop is a string or an object the store keeps as it is, so a page of older
 * messages renders its own rows and leaves the rest alone.
 */
const MessageItem = memo(function MessageItem({
  message,
  sender,
  result,
  own,
  encryptedFor,
  today,
  onDelete,
  highlighted,
}: MessageItemProps) {
  return (
    <li
      className={cn(
        // Rows off screen are not laid out or painted (a long history stays cheap); the size a row
        // had when last shown stands in for it.
        'group relative min-w-0 rounded-lg border px-3 py-2 [contain-intrinsic-size:auto_4.5rem] [content-visibility:auto]',
        own ? 'border-accent/30 bg-accent/5' : 'border-border bg-surface-raised/50',
        result && WARNINGS[result.status] && 'border-red-500/60 bg-red-950/40',
        highlighted && 'ring-2 ring-amber-400',
      )}
      data-message-id={message.id}
      data-highlighted={highlighted || undefined}
      // Focusable from a search result (not in the tab order): screen readers read the chosen one.
      tabIndex={-1}
    >
      <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
        <span className={cn('font-semibold', own ? 'text-accent' : 'text-foreground')}>{sender}</span>
        <time dateTime={message.timestamp} className="text-muted">
          {formatMessageTime(message.timestamp, today)}
        </time>
        <EditedMark id={message.id} />
        {encryptedFor ? (
          <Badge tone="accent">
            <Lock aria-hidden="true" /> Encrypted for {encryptedFor}
          </Badge>
        ) : null}
        {own ? <SentMark /> : null}
        {message.expiresAt ? (
          <span className="flex items-center gap-1 text-muted" title={`Disappears ${formatMessageTime(message.expiresAt, today)}`}>
            <Timer className="size-3" aria-hidden="true" />
            <span className="sr-only">Disappearing message</span>
          </span>
        ) : null}
        {onDelete ? (
          <Button variant="ghost" size="sm" className="ml-auto h-7 px-2" onClick={() => onDelete(message)} aria-label="Delete for everyone">
            <Trash2 aria-hidden="true" />
          </Button>
        ) : null}
      </div>
      <MessageWithExtras message={message} result={result} own={own} sender={sender} body={(shown) => <MessageBody result={shown} />} />
    </li>
  );
});

/** A timer change or a deletion note, in the timeline's flow. */
const EventItem = memo(function EventItem({ event, text }: { event: TimelineEvent; text: string }) {
  const Icon = event.event.kind === 'timer_set' ? Timer : Trash2;
  return (
    <li className="flex items-center justify-center gap-1.5 px-2 py-1 text-center text-xs italic text-muted" data-event-id={event.id}>
      <Icon className="size-3.5 shrink-0" aria-hidden="true" />
      {text}
    </li>
  );
});

function MessageBody({ result }: { result: DecryptResult | undefined }) {
  if (!result) return <p className="text-sm italic text-muted">Decrypting…</p>;
  if (result.status === 'ok') {
    const text = (
      <p className="whitespace-pre-wrap text-sm wrap-anywhere">
        <MentionText text={result.text} />
      </p>
    );
    if (!result.attachment) return text;
    return (
      <div className="grid gap-1.5">
        <AttachmentView attachment={result.attachment} />
        {result.text ? text : null}
      </div>
    );
  }
  const warning = WARNINGS[result.status];
  if (warning) {
    return (
      <p role="alert" className="flex items-start gap-2 text-sm font-medium text-red-300">
        <AlertOctagon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        {warning}
      </p>
    );
  }
  return <p className="text-sm text-muted">{UNREADABLE_TEXT}</p>;
}
