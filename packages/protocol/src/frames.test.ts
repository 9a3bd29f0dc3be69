import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientFrames, clientFrameSchema, serverFrames, serverFrameSchema } from './frames';

const typesOf = (schema: { options: readonly { shape: { type: { value: string } } }[] }) => schema.options.map((o) => o.shape.type.value);

describe('the client frame table', () => {
  it('keys each frame by its own type, and the schema parses every frame of the table and nothing else', () => {
    for (const [type, definition] of Object.entries(clientFrames)) expect(definition.schema.shape.type.value).toBe(type);
    expect(typesOf(clientFrameSchema).sort()).toEqual(Object.keys(clientFrames).sort());
  });

  it('lets only authenticate and ping through before authentication', () => {
    const open = Object.entries(clientFrames)
      .filter(([, d]) => d.access === 'public')
      .map(([type]) => type);
    expect(open.sort()).toEqual(['authenticate', 'ping']);
  });
});

describe('the server frame table', () => {
  it('keys each frame by its own type, and the schema parses every frame of the table and nothing else', () => {
    for (const [type, definition] of Object.entries(serverFrames)) expect(definition.schema.shape.type.value).toBe(type);
    expect(typesOf(serverFrameSchema).sort()).toEqual(Object.keys(serverFrames).sort());
  });

  it('answers the socket that asked with the frames a client frame or its authentication calls for', () => {
    const answers = Object.entries(serverFrames)
      .filter(([, d]) => d.audience === 'socket')
      .map(([type]) => type);
    expect(answers.sort()).toEqual(['auth_failed', 'authenticated', 'error', 'pong', 'presence_snapshot']);
  });
});

describe('both tables', () => {
  it('say in one line what each frame does', () => {
    for (const { summary } of [...Object.values(clientFrames), ...Object.values(serverFrames)]) {
      expect(summary.trim()).not.toBe('');
      expect(summary).not.toContain('\n');
    }
  });
});

const cell = (text: string) => text.replaceAll('|', '\\|');
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const header = (cells: string[]) => [row(cells), row(cells.map(() => '---'))];

/** The tables of docs/architecture.md, "Frames", as the frame tables render them. */
const rendered = {
  client: [
    ...header(['Type', 'Direction', 'Who may send', 'Rate limit', 'Summary']),
    ...Object.entries(clientFrames).map(([type, d]) =>
      row([`\`${type}\``, 'client → server', d.access, 'rateLimit' in d ? `\`${d.rateLimit}\`` : '—', cell(d.summary)]),
    ),
  ],
  server: [
    ...header(['Type', 'Direction', 'Who receives', 'Summary']),
    ...Object.entries(serverFrames).map(([type, d]) => row([`\`${type}\``, 'server → client', d.audience, cell(d.summary)])),
  ],
};

/** The markdown table of `doc` that starts with `firstLine`, to its last row. */
function tableIn(doc: string[], firstLine: string | undefined): string[] {
  const start = doc.indexOf(firstLine ?? '');
  if (start < 0) return [];
  const end = doc.findIndex((line, i) => i > start && !line.startsWith('|'));
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/architecture.md', () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/architecture.md'), 'utf8').split('\n');

  it.each(Object.entries(rendered))('shows the %s frame table as it is declared', (_direction, table) => {
    expect(tableIn(doc, table[0]).join('\n')).toBe(table.join('\n'));
  });
});
