/** Makes the run's template data directory (see `data-dir.ts`) and removes it after the run. */
import fs from 'node:fs';
import { TEMPLATE_ENV } from './data-dir';
import { EnclaveServer } from './server';

export default async function globalSetup(): Promise<() => void> {
  const server = new EnclaveServer();
  await server.start();
  await server.stop();
  // Workers start after this and inherit the runner's environment.
  process.env[TEMPLATE_ENV] = server.dataDir;
  return () => fs.rmSync(server.dataDir, { recursive: true, force: true });
}
