import { describe, expect, it } from 'vitest';
import { clientFrames, clientFrameSchema } from './frames';

describe('the client frame table', () => {
  it('keys each frame by its own type, and the schema parses every frame of the table and nothing else', () => {
    for (const [type, definition] of Object.entries(clientFrames)) expect(definition.schema.shape.type.value).toBe(type);
    expect([...clientFrameSchema.options.map((o) => o.shape.type.value)].sort()).toEqual(Object.keys(clientFrames).sort());
  });

  it('lets only authenticate and ping through before authentication', () => {
    const open = Object.entries(clientFrames).filter(([, d]) => d.access === 'public').map(([type]) => type);
    expect(open.sort()).toEqual(['authenticate', 'ping']);
  });
});
