import { limits } from '@enclave/protocol';
import { Ban, Paperclip, SendHorizontal, X } from 'lucide-react';
import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Button } from '../components/ui/Button';
import { Textarea } from '../components/ui/Input';
import { cn } from '../lib/cn';
import { formatBytes } from '../lib/format';
import { sizeRefusal } from './attachments';
import { MentionList } from './MentionList';
import { useMentionCompletion } from './use-mention-completion';

type MessageInputProps = {
  /** Sending needs a live, authenticated socket (docs/spec.md §5). */
  connected: boolean;
  placeholder: string;
  /**
   * Resolves when the message is stored or has failed for good (then the list shows it with Retry:
   * the composer is already empty for the next one). With a file (sent with the text as its
   * caption), rejects when the upload is refused: the composer then keeps both.
   */
  onSend: (text: string, file: File | null) => Promise<void>;
  /** Each edit of the text (typing indicators, use-typing.ts). */
  onType?: () => void;
  /**
   * Why nothing can be sent here, in the server's words (a DM with a banned member: "This member
   * is banned"): shown above a disabled composer instead of a send that can only fail.
   */
  blocked?: string | null;
  /** Who `@` completes to: in a DM the peer, in the channel every member (mentions.ts). */
  mentionable?: readonly string[];
};

const NOBODY: readonly string[] = [];

export function MessageInput({ connected: online, placeholder, onSend, onType, blocked = null, mentionable = NOBODY }: MessageInputProps) {
  const connected = online && blocked === null;
  const blockedId = useId();
  const counterId = useId();
  const fileNoteId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const field = useRef<HTMLTextAreaElement>(null);
  const completion = useMentionCompletion(text, setText, field, mentionable);
  const [file, setFile] = useState<File | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const blank = text.trim().length === 0;
  const canSend = connected && (!blank || file !== null) && !sending && text.length <= limits.messageMaxChars;

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!canSend) return;
    // The message is in the list (being sent) from now on, so the composer empties at once; one
    // send at a time keeps them in the order they were written.
    setSending(true);
    setText('');
    try {
      await onSend(text, file);
      setFile(null);
    } catch {
      // The upload was refused and the page said why: what was written stays, to send again.
      setText(text);
    } finally {
      setSending(false);
    }
  }

  function choose(chosen: File | undefined) {
    // The same file may be chosen again after removing it.
    if (fileInput.current) fileInput.current.value = '';
    if (!chosen) return;
    const refusal = sizeRefusal(chosen);
    setFileProblem(refusal);
    setFile(refusal ? null : chosen);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (completion.onKeyDown(event)) return;
    // Enter sends, Shift+Enter is a new line; leave composition (IME) input alone.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-1.5 border-t border-border p-3">
      {blocked ? (
        <p id={blockedId} role="status" className="flex items-center gap-2 text-sm text-amber-300" data-composer-blocked>
          <Ban className="size-4 shrink-0" aria-hidden="true" />
          {blocked}
        </p>
      ) : null}
      {file || fileProblem ? (
        <div id={fileNoteId} className="flex min-w-0 items-center gap-2 text-xs" aria-live="polite">
          {file ? (
            <>
              <Paperclip className="size-3.5 shrink-0 text-muted" aria-hidden="true" />
              <span className="min-w-0 truncate">
                {sending ? 'Encrypting and sending ' : ''}
                {file.name} ({formatBytes(file.size)})
              </span>
              <Button
                type="button"
                variant="ghost"
                size="sm"
                className="h-6 px-1"
                aria-label={`Remove ${file.name}`}
                disabled={sending}
                onClick={() => setFile(null)}
              >
                <X aria-hidden="true" />
              </Button>
            </>
          ) : (
            <p role="alert" className="text-amber-300">
              {fileProblem}
            </p>
          )}
        </div>
      ) : null}
      <div className="flex items-end gap-2">
        <input
          ref={fileInput}
          type="file"
          className="hidden"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => choose(e.target.files?.[0])}
          data-testid="attach-input"
        />
        <Button
          type="button"
          variant="outline"
          size="icon"
          className="h-12 w-12 shrink-0"
          aria-label="Attach a file (up to 10 MB, end-to-end encrypted)"
          disabled={!connected || sending}
          onClick={() => fileInput.current?.click()}
        >
          <Paperclip aria-hidden="true" />
        </Button>
        <div className="relative min-w-0 flex-1">
          <MentionList completion={completion} />
          <Textarea
            ref={field}
            aria-autocomplete="list"
            aria-controls={completion.options.length ? completion.listId : undefined}
            aria-activedescendant={completion.options.length ? completion.optionId(completion.active) : undefined}
            aria-label={file ? 'Caption' : 'Message'}
            aria-describedby={blocked ? `${blockedId} ${counterId}` : file ? `${counterId} ${fileNoteId}` : counterId}
            name="message"
            rows={2}
            maxLength={limits.messageMaxChars}
            placeholder={
              blocked
                ? 'Sending is disabled'
                : connected
                  ? file
                    ? 'Add a caption (optional)…'
                    : placeholder
                  : 'Waiting for a secure connection…'
            }
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              completion.update(e.target.value, e.target.selectionStart);
              if (e.target.value.trim()) onType?.();
            }}
            onSelect={(e) => completion.update(e.currentTarget.value, e.currentTarget.selectionStart)}
            onBlur={() => completion.update('', 0)}
            onKeyDown={onKeyDown}
            disabled={!connected}
            className="max-h-40 min-h-12 resize-y"
          />
        </div>
        <Button type="submit" size="icon" className="h-12 w-12 shrink-0" aria-label="Send" disabled={!canSend}>
          <SendHorizontal aria-hidden="true" />
        </Button>
      </div>
      <div className="flex justify-between gap-2 text-xs text-muted">
        <p id={counterId} className={cn(text.length >= limits.messageMaxChars && 'text-amber-300')}>
          {text.length}/{limits.messageMaxChars}
        </p>
        <p className="hidden sm:block">Enter to send · Shift+Enter for a new line</p>
      </div>
    </form>
  );
}
