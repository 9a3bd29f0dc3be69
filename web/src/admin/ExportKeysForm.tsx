import { Download } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { Input, Label } from '../components/ui/Input';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { exportKeysCsv } from '../net/admin-api';
import { adminToasts } from './admin-texts';

/** Hands text to the browser as a file download (the CSV came through fetch, with headers). */
function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Data lines of a CSV with a header line (CRLF or LF). */
function countRows(csv: string): number {
  return Math.max(0, csv.split(/\r?\n/).filter((line) => line !== '').length - 1);
}

/** A sale batch (or every available key) as a CSV file for the distributor. */
export function ExportKeysForm() {
  const id = useId();
  const hintId = useId();
  const [purchaseId, setPurchaseId] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      const { filename, text } = await exportKeysCsv(purchaseId.trim() || undefined);
      download(filename, text);
      toast(adminToasts.exported(countRows(text), filename));
    } catch (error) {
      toast(adminToasts.exportFailed(isApiError(error) ? error.serverMessage : null));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Export Keys</CardTitle>
        <CardDescription>Download a sale batch as CSV for the distributor.</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="grid gap-2" onSubmit={submit} noValidate>
          <Label htmlFor={id}>Batch purchase ID</Label>
          <Input
            id={id}
            maxLength={128}
            autoComplete="off"
            placeholder="e.g. batch-42"
            aria-describedby={hintId}
            value={purchaseId}
            onChange={(e) => setPurchaseId(e.target.value)}
          />
          <p id={hintId} className="text-xs text-muted">
            Every key of that batch, whatever its status. Empty: all available keys.
          </p>
          <Button type="submit" variant="secondary" disabled={busy}>
            <Download aria-hidden="true" /> {busy ? 'Exporting…' : 'Export CSV'}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
