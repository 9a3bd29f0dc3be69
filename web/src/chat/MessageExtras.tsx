/**
 * Replies, reactions and edits on a message row: the quote of the message it replies to, its
 * text as last edited (or the editor), the reaction chips, and the row's actions (Reply, React,
 * Edit). The annotations themselves are folded by the member client (packages/client/src/annotations.ts).
 */
import type { DecryptResult } from '@enclave/client';
import { limits, reactionEmojis, type Message, type ReactionEmoji } from '@enclave/protocol';
import { CornerUpLeft, Pencil, SmilePlus, X } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button } from '../components/ui/Button';
import { toast } from '../components/ui/toast-store';
import { cn } from '../lib/cn';
import { useMessageExtras, type MessageExtras } from './message-extras-context';
import { useUsers } from './use-users';

const QUOTE_CHARS = 80;

/** What a quote or the reply banner shows of a message's text. */
export const quoteLine = (result: DecryptResult | undefined, edited?: string): string => {
  if (result?.status !== 'ok') return 'Encrypted message';
  const line = (edited ?? result.text).split('\n', 1)[0] || (result.attachment ? `📎 ${result.attachment.name}` : '');
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line;
};

function failed(title: string) {
  return (error: unknown) => {
    console.error(title, error);
    toast({ title, description: error instanceof Error ? error.message : 'Try again', tone: 'destructive' });
  };
}

/** "edited", next to the time of a message its sender edited. */
export function EditedMark({ id }: { id: number }) {
  const extras = useMessageExtras();
  if (!extras?.view.annotations.get(id)?.edit) return null;
  return <span className="text-muted italic">edited</span>;
}

type MessageExtrasProps = {
  message: Message;
  result: DecryptResult | undefined;
  own: boolean;
  sender: string;
  /** The row's body for a result (the edited text in place of the first). */
  body: (result: DecryptResult | undefined) => ReactNode;
};

/** The body of a message row with its quote, edited text or editor, reactions and actions. */
export function MessageWithExtras({ message, result, own, sender, body }: MessageExtrasProps) {
  const extras = useMessageExtras();
  const [editing, setEditing] = useState(false);
  if (!extras) return <>{body(result)}</>;
  const folded = extras.view.annotations.get(message.id);
  const shown = result?.status === 'ok' && folded?.edit ? { ...result, text: folded.edit.text } : result;
  const replyTo = result?.status === 'ok' ? result.replyTo : undefined;
  const editable = own && result?.status === 'ok' && !result.attachment;
  return (
    <>
      {replyTo ? <ReplyQuote id={replyTo} extras={extras} /> : null}
      {editing && shown?.status === 'ok' ? (
        <InlineEditor
          text={shown.text}
          onClose={() => setEditing(false)}
          save={(text) => extras.client.edit(extras.receiverId, message.id, text)}
        />
      ) : (
        body(shown)
      )}
      {folded?.reactions.length ? (
        <div className="mt-1 flex flex-wrap items-center gap-1">
          {folded.reactions.map((r) => (
            <ReactionChip key={r.emoji} emoji={r.emoji} by={r.by} extras={extras} targetId={message.id} />
          ))}
        </div>
      ) : null}
      {result?.status === 'ok' ? (
        <RowActions
          extras={extras}
          targetId={message.id}
          onReply={() => extras.reply({ id: message.id, sender, line: quoteLine(result, folded?.edit?.text) })}
          onEdit={editable ? () => setEditing(true) : undefined}
        />
      ) : null}
    </>
  );
}

/** A reply's quote: from the conversation held, else fetched once; "Message deleted" once it is erased. */
function ReplyQuote({ id, extras }: { id: number; extras: MessageExtras }) {
  const { view, client } = extras;
  const users = useUsers();
  const held = view.messages.find((m) => m.id === id);
  const deletedHere = view.events.some((e) => e.id === id && e.event.kind === 'message_deleted');
  const [fetched, setFetched] = useState<{ senderId: string; line: string } | 'deleted' | null>(null);
  useEffect(() => {
    if (held || deletedHere) return;
    let live = true;
    client
      .fetchMessage(id)
      .then((got) => live && setFetched(got ? { senderId: got.message.senderId, line: quoteLine(got.result) } : 'deleted'))
      .catch(() => live && setFetched(null));
    // A target erased while the quote is shown says so at once.
    const off = client.onRemoved((_, ids) => ids.includes(id) && setFetched('deleted'));
    return () => {
      live = false;
      off();
    };
  }, [client, id, held, deletedHere]);
  const source = held
    ? { senderId: held.senderId, line: quoteLine(view.results.get(id), view.annotations.get(id)?.edit?.text) }
    : deletedHere
      ? 'deleted'
      : fetched;
  const name = typeof source === 'object' && source ? (users.data?.find((u) => u.id === source.senderId)?.username ?? 'A member') : '';
  const label = source === 'deleted' ? 'Message deleted' : source ? `${name}: ${source.line}` : 'Loading the quoted message…';
  return (
    <button
      type="button"
      className="mb-1 flex w-full min-w-0 items-center gap-1.5 rounded border-l-2 border-accent/60 bg-surface-raised/70 px-2 py-1 text-left text-xs text-muted hover:bg-surface-raised disabled:cursor-default"
      disabled={!held}
      aria-label={`Replying to ${label}${held ? ': show the message' : ''}`}
      data-reply-quote={id}
      onClick={() => {
        const row = document.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
        row?.scrollIntoView({ block: 'center' });
        row?.focus({ preventScroll: true });
      }}
    >
      <CornerUpLeft className="size-3 shrink-0" aria-hidden="true" />
      {source === 'deleted' ? <span className="italic">Message deleted</span> : null}
      {source && source !== 'deleted' ? (
        <span className="min-w-0 truncate">
          <span className="font-semibold text-foreground">{name}</span> {source.line}
        </span>
      ) : null}
    </button>
  );
}

type ChipProps = { emoji: ReactionEmoji; by: ReadonlyMap<string, readonly number[]>; extras: MessageExtras; targetId: number };

/** One emoji's count; the member's own is marked, and clicking it takes it back. */
function ReactionChip({ emoji, by, extras, targetId }: ChipProps) {
  const mine = by.has(extras.selfId);
  const label = `${emoji} ${by.size}${mine ? ', including you' : ''}`;
  const toggle = () =>
    (mine ? extras.client.unreact(extras.receiverId, targetId, emoji) : extras.client.react(extras.receiverId, targetId, emoji)).catch(
      failed('Reaction not saved'),
    );
  return (
    <button
      type="button"
      onClick={() => void toggle()}
      aria-pressed={mine}
      aria-label={label}
      title={mine ? 'Remove your reaction' : `React with ${emoji}`}
      className={cn(
        'flex h-7 items-center gap-1 rounded-full border px-2 text-xs',
        mine ? 'border-accent/70 bg-accent/15 text-foreground' : 'border-border bg-surface-raised/60 text-muted hover:text-foreground',
      )}
    >
      <span aria-hidden="true">{emoji}</span>
      <span aria-hidden="true">{by.size}</span>
    </button>
  );
}

type RowActionsProps = { extras: MessageExtras; targetId: number; onReply: () => void; onEdit: (() => void) | undefined };

/** Reply, React (a small picker) and Edit: shown on hover and keyboard focus, always on narrow screens. */
function RowActions({ extras, targetId, onReply, onEdit }: RowActionsProps) {
  const [picking, setPicking] = useState(false);
  const picker = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (picking) picker.current?.querySelector('button')?.focus();
  }, [picking]);
  const react = (emoji: ReactionEmoji) => {
    setPicking(false);
    void extras.client.react(extras.receiverId, targetId, emoji).catch(failed('Reaction not saved'));
  };
  return (
    <div
      className={cn(
        // Narrow screens: a line of its own, always shown. Wider: over the row's corner, on hover or focus.
        'mt-1 flex items-center justify-end gap-0.5 transition-opacity',
        'sm:absolute sm:right-2 sm:bottom-1 sm:mt-0 sm:rounded-md sm:border sm:border-border sm:bg-surface sm:px-0.5 sm:shadow',
        !picking && 'sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100',
      )}
    >
      {picking ? (
        <div
          ref={picker}
          role="group"
          aria-label="Choose a reaction"
          className="flex items-center gap-0.5 rounded-full border border-border bg-surface px-1"
          onKeyDown={(e) => e.key === 'Escape' && setPicking(false)}
        >
          {reactionEmojis.map((emoji) => (
            <button
              key={emoji}
              type="button"
              className="h-7 w-7 rounded-full text-base hover:bg-surface-raised"
              aria-label={`React with ${emoji}`}
              onClick={() => react(emoji)}
            >
              {emoji}
            </button>
          ))}
        </div>
      ) : null}
      <Button variant="ghost" size="sm" className="h-7 px-2" aria-label="Reply" onClick={onReply}>
        <CornerUpLeft aria-hidden="true" />
      </Button>
      <Button
        variant="ghost"
        size="sm"
        className="h-7 px-2"
        aria-label="React"
        aria-expanded={picking}
        onClick={() => setPicking(!picking)}
      >
        <SmilePlus aria-hidden="true" />
      </Button>
      {onEdit ? (
        <Button variant="ghost" size="sm" className="h-7 px-2" aria-label="Edit message" onClick={onEdit}>
          <Pencil aria-hidden="true" />
        </Button>
      ) : null}
    </div>
  );
}

type InlineEditorProps = { text: string; onClose: () => void; save: (text: string) => Promise<void> };

/** Editing one's own message in place: Enter saves, Escape cancels. */
function InlineEditor({ text, onClose, save }: InlineEditorProps) {
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  // The member just asked to edit this message: the caret goes to its end.
  useEffect(() => {
    const el = field.current;
    el?.focus();
    el?.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const trimmed = draft.trim();
  const submit = () => {
    if (!trimmed || trimmed.length > limits.messageMaxChars || busy) return;
    if (trimmed === text) return onClose();
    setBusy(true);
    save(trimmed)
      .then(onClose)
      .catch(failed('Edit not saved'))
      .finally(() => setBusy(false));
  };
  return (
    <div className="grid gap-1">
      <p className="flex items-center gap-1 text-xs text-accent">
        <Pencil className="size-3" aria-hidden="true" /> Editing message
      </p>
      <textarea
        ref={field}
        aria-label="Edit message"
        value={draft}
        maxLength={limits.messageMaxChars}
        rows={Math.min(6, draft.split('\n').length)}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onClose();
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            submit();
          }
        }}
        className="w-full resize-none rounded-md border border-border bg-surface px-2 py-1 text-sm text-foreground focus:outline-none focus:ring-2 focus:ring-accent"
      />
      <div className="flex gap-1">
        <Button size="sm" onClick={submit} disabled={busy || !trimmed}>
          Save
        </Button>
        <Button size="sm" variant="ghost" onClick={onClose}>
          <X aria-hidden="true" /> Cancel
        </Button>
      </div>
    </div>
  );
}

/** Above the composer while a reply is being written: whom it answers, and a way out. */
export function ReplyBanner({ target, onCancel }: { target: { sender: string; line: string } | null; onCancel: () => void }) {
  if (!target) return null;
  return (
    <div
      className="flex min-w-0 items-center gap-2 border-t border-border bg-surface-raised/60 px-3 py-1.5 text-xs text-muted"
      role="status"
    >
      <CornerUpLeft className="size-3.5 shrink-0" aria-hidden="true" />
      <span className="min-w-0 flex-1 truncate">
        Replying to <span className="font-semibold text-foreground">{target.sender}</span>: {target.line}
      </span>
      <Button variant="ghost" size="sm" className="h-7 px-2" aria-label="Cancel the reply" onClick={onCancel}>
        <X aria-hidden="true" />
      </Button>
    </div>
  );
}
