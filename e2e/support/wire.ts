/** Records every HTTP body and WebSocket frame a browser context exchanges, for privacy checks. */
import type { BrowserContext, Page } from '@playwright/test';

export class WireTap {
  readonly payloads: string[] = [];

  attach(context: BrowserContext): void {
    context.on('request', (req) => {
      const body = req.postData();
      this.payloads.push(`${req.method()} ${req.url()} ${req.headers()['authorization'] ?? ''} ${body ?? ''}`);
    });
    context.on('response', async (res) => {
      const type = res.headers()['content-type'] ?? '';
      if (!type.includes('json')) return;
      try {
        this.payloads.push(`${res.status()} ${res.url()} ${await res.text()}`);
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
