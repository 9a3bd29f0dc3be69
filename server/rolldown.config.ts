/**
 * Production build of the server: `node dist/main.js` runs it with no TypeScript loader.
 *
 * Why a bundle rather than `tsc` output: the sources import each other without file extensions
 * (`./app`), which Node's ESM loader does not resolve, and the workspace packages export their
 * TypeScript (`./src/index.ts`), which Vite, Vitest and tsx read directly in development. Bundling
 * @enclave/* into the output keeps both as they are; npm dependencies stay external and load from
 * node_modules as usual. Rolldown is the bundler Vite already uses here (one bundler, one version);
 * tsdown 0.23 wants Node 22.
 *
 * Files are read at run time relative to `src/paths.ts`, which sits one folder below the server's
 * own folder in `src/` and, bundled, in `dist/`: keep every entry's output at the top of `dist/`.
 */
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { defineConfig } from 'rolldown';
import pkg from './package.json' with { type: 'json' };

const bundled = (id: string) => id.startsWith('.') || id.startsWith('/') || id.startsWith('@enclave/');
const runtimeDependencies = new Set(Object.keys(pkg.dependencies));
const packageName = (id: string) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The commit the bundle is built from, for /api/health and the start line (src/version.ts):
 * "-dirty" when tracked files differ from it, "unknown" outside a git checkout or without git.
 */
function gitCommit(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

/**
 * Leaves npm packages to node_modules, and fails the build when one is not a runtime dependency
 * of the server: hoisting would find it here, an install without dev dependencies would not.
 */
function external(id: string): boolean {
  if (bundled(id)) return false;
  if (id.startsWith('node:') || builtinModules.includes(id)) return true;
  if (!runtimeDependencies.has(packageName(id))) {
    throw new Error(`${id} is imported by the server but is not in server/package.json "dependencies"`);
  }
  return true;
}

export default defineConfig({
  input: {
    main: 'src/main.ts',
    'generate-keys': 'src/cli/generate-keys.ts',
    backup: 'src/cli/backup.ts',
    restore: 'src/cli/restore.ts',
    migrate: 'src/cli/migrate.ts',
    admin: 'src/cli/admin.ts',
    // Started as a worker thread by its path (paths.ts embeddedWorkerFile).
    'embedded-worker': 'src/db/embedded-worker.ts',
  },
  platform: 'node',
  tsconfig: 'tsconfig.json',
  external,
  transform: { define: { __ENCLAVE_COMMIT__: JSON.stringify(gitCommit()) } },
  output: {
    dir: 'dist',
    format: 'esm',
    cleanDir: true,
    // Stack traces in production logs point at the sources (node --enable-source-maps).
    sourcemap: true,
  },
});
