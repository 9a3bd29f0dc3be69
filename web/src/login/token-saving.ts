/** Keeping a freshly issued access token: its file, and the warning before leaving without it. */
import { useEffect } from 'react';

export const TOKEN_FILE_NAME = 'enclave-access-token.txt';

/** What the downloaded file holds: the token on a line of its own, ready to paste. */
export function tokenFileText(accessToken: string): string {
  return `Enclave access token. The only copy: keep it private, and safe from loss.\n\n${accessToken}\n`;
}

/** Saves the token as a .txt file through a blob: URL (no server round trip; allowed by the app's CSP). */
export function downloadToken(accessToken: string): void {
  const url = URL.createObjectURL(new Blob([tokenFileText(accessToken)], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = TOKEN_FILE_NAME;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked once the browser has started reading it, so the token does not stay addressable.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Asks the browser to confirm leaving the page while `active` (the token not yet saved). */
export function useWarnBeforeLeaving(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium and Safari show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
}
