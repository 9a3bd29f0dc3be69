import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { migrationsFolder } from '../paths';

/** The migration journal drizzle-kit writes: one entry per migration, in order (migrations.test.ts). */
const journalSchema = z.object({
  entries: z.array(z.object({ idx: z.number().int().nonnegative(), when: z.number().int(), tag: z.string() })).min(1),
});
export type Journal = z.infer<typeof journalSchema>;

/** This version's migration journal, parsed. */
export function readJournal(): Journal {
  return journalSchema.parse(JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')));
}
