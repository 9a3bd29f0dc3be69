import { CreatorConsole } from './CreatorConsole';
import { useMasterKey } from './creator-queries';
import { MasterKeyCard } from './MasterKeyCard';

/** /super-admin, "Creator Access": the master-key card until the server accepted a key, then the console. */
export function CreatorPage() {
  const masterKey = useMasterKey();
  return masterKey ? <CreatorConsole /> : <MasterKeyCard />;
}
