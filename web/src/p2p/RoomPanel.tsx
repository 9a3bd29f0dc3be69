import { Lock } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { Input } from '../components/ui/Input';
import { errorText } from './error-text';
import type { P2pController, RoomView } from './p2p-controller';

/** The same limit as the chat's (the envelope refuses longer plaintext). */
const MAX_CHARS = 500;

const statusText = { connecting: 'Connecting…', open: 'Connected', closed: 'Closed' } as const;

/** The room this tab hosts or joined: who is in it, its messages and who could read each. */
export function RoomPanel({
  room,
  controller,
  nameOf,
  selfId,
}: {
  room: RoomView;
  controller: P2pController;
  nameOf: (id: string) => string;
  selfId: string;
}) {
  const [text, setText] = useState('');
  const [sendError, setSendError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const names = (ids: readonly string[]) => ids.map((id) => (id === selfId ? 'you' : nameOf(id))).join(', ');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    setSendError(null);
    try {
      await controller.say(text);
      setText('');
    } catch (error) {
      console.warn('p2p: sending failed', error);
      setSendError(`Not sent: ${errorText(error)}`);
    } finally {
      setSending(false);
    }
  };

  const open = room.status === 'open';
  return (
    <Card aria-label="Room" role="region" data-room-status={room.status}>
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>{room.role === 'host' ? 'Your room' : `Room of ${nameOf(room.hostId)}`}</CardTitle>
          <div className="flex items-center gap-2">
            <Badge tone={open ? 'success' : room.status === 'closed' ? 'danger' : 'warning'}>{statusText[room.status]}</Badge>
            {room.role === 'joiner' &&
              (room.status === 'closed' ? (
                <Button variant="outline" size="sm" onClick={() => controller.dismiss()}>
                  Dismiss
                </Button>
              ) : (
                <Button variant="outline" size="sm" onClick={() => controller.leave()}>
                  Leave room
                </Button>
              ))}
          </div>
        </div>
        <CardDescription className="flex items-start gap-1.5">
          <Lock className="mt-0.5 size-3.5 shrink-0" aria-hidden="true" />
          Messages travel between browsers only, end-to-end encrypted for the members in the room when they are sent: each message lists who
          can read it. The host relays them; it reads them only as a member of the room. Members who join later cannot read earlier
          messages.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {room.closedReason && (
          <p role="alert" className="text-sm text-danger">
            {room.closedReason}
          </p>
        )}
        <p className="text-sm" aria-label="In the room">
          <span className="text-muted">{room.status === 'closed' ? 'In the room when it closed: ' : 'In the room: '}</span>
          {room.members.length ? names(room.members) : '—'}
        </p>
        <ol className="grid max-h-80 gap-2 overflow-y-auto" role="log" aria-label="Room messages">
          {room.entries.map((entry) =>
            entry.kind === 'message' ? (
              <li key={entry.id} className="rounded-md border border-border bg-surface-raised px-3 py-2 text-sm">
                <span className="font-medium">{entry.senderId === selfId ? 'You' : nameOf(entry.senderId)}: </span>
                <span className="whitespace-pre-wrap break-words">{entry.text}</span>
                <span className="block text-xs text-muted">Encrypted for {names(entry.readers)}</span>
              </li>
            ) : (
              <li key={entry.id} className="text-xs text-amber-300">
                {entry.senderId ? `${nameOf(entry.senderId)} ` : ''}
                {entry.text}
              </li>
            ),
          )}
        </ol>
        {room.status !== 'closed' && (
          <form className="flex gap-2" onSubmit={(e) => void submit(e)}>
            <Input
              aria-label="Room message"
              value={text}
              onChange={(e) => setText(e.target.value)}
              maxLength={MAX_CHARS}
              placeholder={open ? 'Message the room' : 'Waiting for the connection…'}
              disabled={!open}
            />
            <Button type="submit" disabled={!open || sending || !text.trim()}>
              Send
            </Button>
          </form>
        )}
        {sendError && (
          <p role="alert" className="text-sm text-danger">
            {sendError}
          </p>
        )}
      </CardContent>
    </Card>
  );
}
