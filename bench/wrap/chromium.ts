/**
 * The Chromium half of `npm run bench:wrap`: bundles bench/wrap/page.ts and bench/wrap/worker.ts
 * with esbuild (the workspace packages' TypeScript as the web app would ship it), serves them on a
 * loopback port, and times each wrap in Debian's Chromium with the e2e suite's flags.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { chromiumArgs } from '../chromium';
import type { PageResult, WrapKind } from './page';

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(import.meta.dirname, entry)],
    bundle: true,
    format: 'esm',
    target: 'es2023',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

/** One wrap per size and kind, in one browser; the results in the order asked. */
export async function wrapInChromium(
  runs: { kind: WrapKind; members: number }[],
  keyCount: number,
  log: (line: string) => void,
): Promise<(PageResult & { kind: WrapKind; members: number })[]> {
  const files: Record<string, string> = {
    '/': '<!doctype html><title>wrap bench</title><script type="module" src="/page.js"></script>',
    '/page.js': await bundle('page.ts'),
    '/worker.js': await bundle('worker.ts'),
  };
  const server = http.createServer((request, response) => {
    const body = files[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': request.url === '/' ? 'text/html' : 'text/javascript' });
    response.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => 'wrapBench' in window);
    const results = [];
    for (const run of runs) {
      const result = await page.evaluate(
        ({ kind, members, keyCount }) =>
          (window as unknown as { wrapBench: (k: string, n: number, c: number) => Promise<PageResult> }).wrapBench(kind, members, keyCount),
        { ...run, keyCount },
      );
      log(`Chromium, ${run.kind}, ${run.members} members: ${Math.round(result.ms)} ms`);
      results.push({ ...run, ...result });
    }
    return results;
  } finally {
    await browser.close();
    server.close();
  }
}
