import type { Config } from './config';
import type { Db } from './db/client';
import type { Gateway } from './realtime/gateway';

/** What every feature's routes are built from. */
export type AppContext = { db: Db; config: Config; gateway: Gateway };
