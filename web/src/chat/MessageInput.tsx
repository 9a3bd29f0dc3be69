import { limits } from '@enclave/protocol';
import { SendHorizontal } from 'lucide-react';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Button } from '../components/ui/Button';
import { Textarea } from '../components/ui/Input';
import { cn } from '../lib/cn';

type MessageInputProps = {
  /** Sending needs a live, authenticated socket (docs/spec.md §5). */
  connected: boolean;
  placeholder: string;
  /**
   * Resolves when the message is stored or has failed for good (then the list shows it with Retry:
   * the composer is already empty for the next one).
   */
  onSend: (text: string) => Promise<void>;
  /** Each edit of the text (typing indicators, use-typing.ts). */
  onType?: () => void;
};

export function MessageInput({ connected, placeholder, onSend, onType }: MessageInputProps) {
  const counterId = useId();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const blank = text.trim().length === 0;
  const canSend = connected && !blank && !sending && text.length <= limits.messageMaxChars;

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!canSend) return;
    // The message is in the list (being sent) from now on, so the composer empties at once; one
    // send at a time keeps them in the order they were written.
    setSending(true);
    setText('');
    await onSend(text);
    setSending(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Enter sends, Shift+Enter is a new line; leave composition (IME) input alone.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-1.5 border-t border-border p-3">
      <div className="flex items-end gap-2">
        <Textarea
          aria-label="Message"
          aria-describedby={counterId}
          name="message"
          rows={2}
          maxLength={limits.messageMaxChars}
          placeholder={connected ? placeholder : 'Waiting for a secure connection…'}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value.trim()) onType?.();
          }}
          onKeyDown={onKeyDown}
          disabled={!connected}
          className="max-h-40 min-h-12 resize-y"
        />
        <Button type="submit" size="icon" className="h-12 w-12" aria-label="Send" disabled={!canSend}>
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
