import type { AttachmentStore } from './attachments/blobs';
import type { Config } from './config';
import type { Db } from './db/client';
import type { Scrubber } from './db/erasure';
import type { GroupCommit } from './db/group-commit';
import type { Tally } from './http/metrics';
import type { WorkGate } from './http/overload';
import type { PushSender } from './push/sender';
import type { Gateway } from './realtime/gateway';
import type { BlockList } from './security/blocks';

/** What every feature's routes are built from. */
export type AppContext = {
  db: Db;
  config: Config;
  gateway: Gateway;
  blocks: BlockList;
  attachments: AttachmentStore;
  scrubber: Scrubber;
  gate: WorkGate;
  tally: Tally;
  /** Web Push to members with no socket open (push/sender.ts). */
  push: PushSender;
  /** The sends' inserts, committed in groups (db/group-commit.ts). */
  sends: GroupCommit;
};
