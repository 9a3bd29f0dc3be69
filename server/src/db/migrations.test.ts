/**
 * Drizzle applies a migration only when its journal time is later than the last one a database has
 * applied: a migration generated with an earlier time than a hand-set predecessor (0003's is in
 * the future) would be skipped on every existing database, and only fresh ones would get it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationsFolder } from '../paths';

type Journal = { entries: { idx: number; when: number; tag: string }[] };

describe('the migration journal', () => {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as Journal;

  it('orders every migration after the one before it, in time as in number', () => {
    journal.entries.forEach((e, i) => {
      expect(e.idx).toBe(i);
      expect(e.tag.startsWith(String(i).padStart(4, '0') + '_'), e.tag).toBe(true);
      if (i > 0) expect(e.when, `${e.tag} must be later than ${journal.entries[i - 1]!.tag}`).toBeGreaterThan(journal.entries[i - 1]!.when);
    });
  });

  it('has an SQL file and a snapshot for each entry, and nothing else', () => {
    const sql = fs.readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'));
    expect(sql.sort()).toEqual(journal.entries.map((e) => `${e.tag}.sql`));
    for (const e of journal.entries) expect(fs.existsSync(path.join(migrationsFolder, 'meta', `${e.tag.slice(0, 4)}_snapshot.json`)), e.tag).toBe(true);
  });
});
