/**
 * Data directories for e2e servers. Creating an embedded database is most of a server's first
 * start (seconds on a busy machine, where reopening one takes under one), so `global-setup.ts`
 * starts one server once and every server of the run begins from a copy of its directory: a fresh,
 * migrated, empty network each time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Set by `global-setup.ts` for the test workers: the directory every new server's is copied from. */
export const TEMPLATE_ENV = 'ENCLAVE_E2E_TEMPLATE_DIR';

/** A new data directory: a copy of the run's template when there is one, else empty. */
export function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-e2e-'));
  const template = process.env[TEMPLATE_ENV];
  // The operator socket belongs to the server that made it; the next start makes its own.
  if (template) fs.cpSync(template, dir, { recursive: true, filter: (src) => !src.endsWith('.sock') });
  return dir;
}
