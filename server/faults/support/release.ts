/**
 * An earlier release of Enclave, built as an operator would build it: its files taken from git at
 * the release's tag, its dependencies installed by `npm ci` from its own lockfile, its server built
 * by its own build script, in a scratch folder removed afterwards.
 *
 * The tag names the commit; a clone without tags finds it in CHANGELOG.md ("commit `0f52d5e`"
 * under the release's heading). A shallow clone may hold neither: then the test is skipped with
 * the reason, since nothing in the project can bring back history the clone left out.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../../..', import.meta.url));

export type Release = {
  version: string;
  commit: string;
  /** The release's built server (`server/dist`), for Instance.start. */
  dist: string;
  remove(): void;
};

/** The commit of release `version`: its tag, else the commit CHANGELOG.md gives it; null when this clone lacks it. */
export async function releaseCommit(version: string): Promise<string | null> {
  const changelog = fs.readFileSync(path.join(repository, 'CHANGELOG.md'), 'utf8');
  const section = changelog.split(/^## /m).find((s) => s.startsWith(`[${version}]`)) ?? '';
  const named = /commit `([0-9a-f]{7,40})`/.exec(section)?.[1];
  for (const ref of [`v${version}`, named].filter(Boolean)) {
    try {
      const { stdout } = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repository });
      return stdout.trim();
    } catch {
      // not in this clone: try the next name
    }
  }
  return null;
}

/** A scratch folder holding the files git has at `commit`, as a release's archive holds them: no `.git`, nothing untracked. */
export async function exportCommit(commit: string, name: string): Promise<{ dir: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    await run('bash', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'archive', repository, commit, dir]);
    return { dir, remove };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Runs npm in `dir` and returns its standard output; a failure carries its output in the error. */
export async function npm(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npm', args, { cwd: dir, maxBuffer: 16 << 20 });
  return stdout;
}

/** `npm ci` from the folder's own lockfile; --prefer-offline: the packages it shares with this checkout come from npm's cache. */
export const npmCi = (dir: string) => npm(dir, 'ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error');

/** Checks out `commit` into a scratch folder, installs its locked dependencies and builds its server (about 20 s). */
export async function buildRelease(version: string, commit: string): Promise<Release> {
  const { dir, remove } = await exportCommit(commit, `enclave-release-${version}`);
  try {
    await npmCi(dir);
    await npm(dir, 'run', '--silent', 'build', '-w', 'server');
    return { version, commit, dist: path.join(dir, 'server', 'dist'), remove };
  } catch (err) {
    remove();
    throw err;
  }
}
