import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'vite';
import { precacheList } from './src/sw/shell';

/**
 * Builds the service worker (src/sw/sw.ts) to `dist/sw.js` once the app is written: it lists the
 * shell's files (src/sw/shell.ts) and hashes their contents into the cache's version, so every
 * release that changes a file ships a new worker, which replaces the old cache. /sw.js keeps its
 * name (a worker's URL must not change) and is served `no-cache` (server/src/http/web-app.ts).
 */
export function serviceWorker(): Plugin {
  let outDir = '';
  let root = '';
  return {
    name: 'enclave:service-worker',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // After the build and public/ are written; before precompress (listed after it in vite.config.ts).
    writeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        const files = precacheList(await fs.readdir(outDir, { recursive: true }));
        const hash = createHash('sha256');
        for (const file of files) hash.update(file).update(await fs.readFile(path.join(outDir, file)));
        await build({
          configFile: false,
          root,
          logLevel: 'warn',
          define: {
            __ENCLAVE_PRECACHE__: JSON.stringify(files),
            __ENCLAVE_SHELL_VERSION__: JSON.stringify(hash.digest('hex').slice(0, 16)),
          },
          build: {
            outDir,
            emptyOutDir: false,
            copyPublicDir: false,
            minify: true,
            rolldownOptions: {
              input: path.join(root, 'src/sw/sw.ts'),
              // A classic script, one file: the worker is registered without `type: 'module'`.
              output: { format: 'iife', entryFileNames: 'sw.js', codeSplitting: false },
            },
          },
        });
      },
    },
  };
}
