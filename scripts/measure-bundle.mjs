#!/usr/bin/env node
// What a member's browser downloads before the first screen: the JavaScript that web/dist/index.html
// loads (entry script and modulepreloads), gzip-compressed as the server sends it. Lazy chunks are
// not counted: they load only on the screens that import them. Sizes in kB of 1,000 bytes, as Vite
// prints them; gzip at level 9, as the build's .gz files.
// Usage: node scripts/measure-bundle.mjs [path/to/dist]   (after `npm run build`)
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../web/dist'));
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');

const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g)].map((m) => m[1]);
const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)].map((m) => m[1]);
const css = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+\.css)"/g)].map((m) => m[1]);

const size = (url) => {
  const file = path.join(dist, url.replace(/^\//, ''));
  const bytes = fs.readFileSync(file);
  // Brotli as the server sends it, when the build wrote it.
  const br = fs.existsSync(`${file}.br`) ? fs.statSync(`${file}.br`).size : undefined;
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, br };
};
const kb = (n) => (n === undefined ? '-' : `${(n / 1000).toFixed(1)} kB`);

const total = { raw: 0, gzip: 0, br: 0 };
for (const url of [...new Set([...scripts, ...preloads])]) {
  const s = size(url);
  total.raw += s.raw;
  total.gzip += s.gzip;
  total.br = s.br === undefined || total.br === undefined ? undefined : total.br + s.br;
  console.log(`${url.padEnd(44)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip ${kb(s.br).padStart(10)} br`);
}
const cssGzip = css.reduce((sum, url) => sum + size(url).gzip, 0);
console.log(
  `initial JS for /: ${kb(total.gzip)} gzip (${total.gzip} bytes), ${kb(total.br)} br, ${kb(total.raw)} raw; CSS ${kb(cssGzip)} gzip`,
);
