import type { AttachmentRef } from '@enclave/protocol';
import { AlertOctagon, Download, FileIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../components/ui/Button';
import { formatBytes } from '../lib/format';
import { isInlineImage, openFile } from './attachments';

/** Shown when the blob is not the one the sender hashed, or does not decrypt. */
export const ATTACHMENT_FAILED_TEXT = '⚠ This attachment could not be opened: it may have been altered or removed.';

type Opened = { status: 'idle' | 'opening' } | { status: 'open'; url: string } | { status: 'failed' };
type Outcome = Exclude<Opened, { status: 'idle' | 'opening' }>;

/**
 * Decrypts an attachment into a `blob:` URL held while the row is mounted and revoked when it
 * goes; nothing of the plaintext is written to browser storage.
 */
function useOpenedFile(attachment: AttachmentRef, openNow: boolean) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [requested, setRequested] = useState(openNow);
  const opened: Opened = outcome ?? { status: requested ? 'opening' : 'idle' };
  useEffect(() => {
    if (!requested) return;
    let url: string | null = null;
    let live = true;
    openFile(attachment).then(
      (blob) => {
        url = URL.createObjectURL(blob);
        if (live) setOutcome({ status: 'open', url });
        else URL.revokeObjectURL(url);
      },
      (error: unknown) => {
        console.error('could not open an attachment', error);
        if (live) setOutcome({ status: 'failed' });
      },
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [attachment, requested]);
  return { opened, request: () => setRequested(true) };
}

/** An image inline (after decryption and the hash check), any other file as a download with its name and size. */
export function AttachmentView({ attachment }: { attachment: AttachmentRef }) {
  const image = isInlineImage(attachment.type);
  const { opened, request } = useOpenedFile(attachment, image);
  const link = useRef<HTMLAnchorElement>(null);
  const wantsDownload = useRef(false);
  const label = `${attachment.name} (${formatBytes(attachment.size)})`;

  // The download starts once the file is decrypted, from the click that asked for it.
  useEffect(() => {
    if (opened.status === 'open' && wantsDownload.current) {
      wantsDownload.current = false;
      link.current?.click();
    }
  }, [opened]);

  if (opened.status === 'failed') {
    return (
      <p role="alert" className="flex items-start gap-2 text-sm font-medium text-red-300">
        <AlertOctagon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        {ATTACHMENT_FAILED_TEXT}
      </p>
    );
  }
  if (image) {
    if (opened.status !== 'open') return <p className="text-sm italic text-muted">Decrypting image {label}…</p>;
    return <img src={opened.url} alt={attachment.name} className="max-h-72 max-w-full rounded-md border border-border object-contain" />;
  }
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2">
      <FileIcon className="size-4 shrink-0 text-muted" aria-hidden="true" />
      <span className="min-w-0 text-sm wrap-anywhere">{label}</span>
      {opened.status === 'open' ? (
        <a ref={link} href={opened.url} download={attachment.name} className="inline-flex items-center gap-1 text-sm text-accent underline">
          <Download className="size-4" aria-hidden="true" /> Save
        </a>
      ) : (
        <Button
          variant="outline"
          size="sm"
          disabled={opened.status === 'opening'}
          aria-label={`Download ${label}`}
          onClick={() => {
            wantsDownload.current = true;
            request();
          }}
        >
          <Download aria-hidden="true" /> {opened.status === 'opening' ? 'Decrypting…' : 'Download'}
        </Button>
      )}
    </div>
  );
}
