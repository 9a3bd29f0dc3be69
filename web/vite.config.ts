import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import { precompress } from './vite-precompress';
import { serviceWorker } from './vite-service-worker';

const backend = 'http://127.0.0.1:5000';

export default defineConfig({
  // serviceWorker before precompress: both run once the build is written, in this order.
  plugins: [react(), tailwindcss(), serviceWorker(), precompress()],
  // The channel key's wrap workers (realtime/wrap-worker.ts) are modules, like the app.
  worker: { format: 'es' },
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: false },
      '/ws': { target: backend, ws: true, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or data: URLs for scripts: the server's CSP is script-src 'self'.
    assetsInlineLimit: 0,
    rolldownOptions: {
      output: {
        // The tamper detector's probe is a `debugger` statement (web/src/security/devtools.ts): keep it.
        minify: { compress: { dropDebugger: false }, mangle: true },
        // Libraries change less often than the app: a separate chunk stays cached across releases.
        // The protocol's schemas in a chunk of their own, with the module that turns off zod's eval
        // (packages/protocol/src/jitless.ts): in one chunk it runs before any schema is built, as
        // main.tsx imports it first. Split apart, a shared chunk could build schemas earlier, and
        // zod's eval probe would break the CSP (the e2e guard, e2e/support/test.ts, catches that).
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules/ },
            { name: 'protocol', test: /packages[\\/]protocol[\\/]/ },
          ],
        },
      },
    },
  },
});
