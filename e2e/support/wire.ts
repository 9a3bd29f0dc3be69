/** Records every HTTP body and WebSocket frame a browser context exchanges, for privacy checks. */
import type { BrowserContext, Page } from '@playwright/test';

/** Raw bytes (attachment ciphertext), one character per byte, so that any ASCII marker in them shows. */
const BINARY = 'application/octet-stream';

export class WireTap {
  readonly payloads: string[] = [];

  attach(context: BrowserContext): void {
    context.on('request', (req) => {
      const binary = req.headers()['content-type']?.startsWith(BINARY);
      const body = binary ? req.postDataBuffer()?.toString('latin1') : req.postData();
      this.payloads.push(`${req.method()} ${req.url()} ${req.headers()['authorization'] ?? ''} ${body ?? ''}`);
    });
    context.on('response', async (res) => {
      const type = res.headers()['content-type'] ?? '';
      if (!type.includes('json') && !type.startsWith(BINARY)) return;
      try {
        const body = type.startsWith(BINARY) ? (await res.body()).toString('latin1') : await res.text();
        this.payloads.push(`${res.status()} ${res.url()} ${body}`);
      } catch {
        // the page navigated away before the body was read: nothing was delivered to it either
      }
    });
    const onPage = (page: Page) =>
      page.on('websocket', (ws) => {
        ws.on('framesent', (f) => this.payloads.push(`ws> ${String(f.payload)}`));
        ws.on('framereceived', (f) => this.payloads.push(`ws< ${String(f.payload)}`));
      });
    context.pages().forEach(onPage);
    context.on('page', onPage);
  }
}
