/**
 * What this server is: the release in the root package.json and the git commit it was built from.
 * The build (rolldown.config.ts) writes the commit into the bundle; run from the sources (tsx,
 * tests) or built outside a git checkout, the commit is "unknown".
 */
import rootPackage from '../../package.json' with { type: 'json' };

declare const __ENCLAVE_COMMIT__: string | undefined;

export const build = {
  version: rootPackage.version,
  /** 40 hex digits, "-dirty" after them when tracked files differed from that commit at build time; or "unknown". */
  commit: typeof __ENCLAVE_COMMIT__ === 'string' ? __ENCLAVE_COMMIT__ : 'unknown',
} as const;
