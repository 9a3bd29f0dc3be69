import { describe, expect, it } from 'vitest';
import { buildHeatmapGrid, intensity, legendRange, localHourStart } from './heatmap-grid';

const to = new Date(2026, 10, 21, 14, 25); // local time
const from = new Date(to.getTime() - 7 * 24 * 60 * 60 * 1000);
const at = (day: number, hour: number) => new Date(2026, 10, day, hour).toISOString();

describe('buildHeatmapGrid', () => {
  const heatmap = {
    from: from.toISOString(),
    to: to.toISOString(),
    cells: [
      { hour: at(21, 14), type: 'master_key_failed', count: 2 },
      { hour: at(21, 14), type: 'login_failed', count: 1 },
      { hour: at(15, 9), type: 'login_failed', count: 4 },
    ],
  };

  it('lays out every local day of the window with 24 hours', () => {
    const grid = buildHeatmapGrid(heatmap);
    expect(grid.days).toHaveLength(8);
    expect(grid.days.every((d) => d.cells.length === 24)).toBe(true);
    expect(grid.days[0]?.date.getDate()).toBe(14);
    expect(grid.days[7]?.date.getDate()).toBe(21);
  });

  it('adds up the types of one hour and keeps the breakdown', () => {
    const grid = buildHeatmapGrid(heatmap);
    const cell = grid.days[7]?.cells[14];
    expect(cell?.count).toBe(3);
    expect(cell?.byType).toEqual([
      { type: 'master_key_failed', count: 2 },
      { type: 'login_failed', count: 1 },
    ]);
    expect(cell?.iso).toBe(at(21, 14));
    expect(grid.total).toBe(7);
    expect(grid.max).toBe(4);
    expect(grid.types).toEqual([
      { type: 'login_failed', count: 5 },
      { type: 'master_key_failed', count: 2 },
    ]);
  });

  it('counts one type only when asked', () => {
    const grid = buildHeatmapGrid(heatmap, 'master_key_failed');
    expect(grid.days[7]?.cells[14]?.count).toBe(2);
    expect(grid.days[1]?.cells[9]?.count).toBe(0);
    expect(grid.total).toBe(2);
  });

  it('marks hours outside the last 7 days', () => {
    const grid = buildHeatmapGrid(heatmap);
    expect(grid.days[0]?.cells[13]?.inWindow).toBe(false);
    expect(grid.days[0]?.cells[14]?.inWindow).toBe(true);
    expect(grid.days[7]?.cells[14]?.inWindow).toBe(true);
    expect(grid.days[7]?.cells[15]?.inWindow).toBe(false);
  });

  it('is empty, not invented, without events', () => {
    const grid = buildHeatmapGrid({ ...heatmap, cells: [] });
    expect(grid.total).toBe(0);
    expect(grid.max).toBe(0);
    expect(grid.types).toEqual([]);
  });
});

describe('intensity', () => {
  it('is 0 for no events and 1 to 4 by share of the busiest hour', () => {
    expect(intensity(0, 10)).toBe(0);
    expect(intensity(1, 10)).toBe(1);
    expect(intensity(5, 10)).toBe(2);
    expect(intensity(10, 10)).toBe(4);
  });
});

describe('localHourStart', () => {
  it('drops minutes and seconds', () => {
    expect(localHourStart(new Date(2026, 0, 1, 5, 59, 59, 999)).getTime()).toBe(new Date(2026, 0, 1, 5).getTime());
  });
});

describe('legendRange', () => {
  it('names, for each colour, exactly the counts intensity gives that colour', () => {
    for (let max = 1; max <= 40; max++) {
      for (let count = 1; count <= max; count++) {
        const level = intensity(count, max);
        if (level === 0) throw new Error(`count ${count} of ${max} has no colour`);
        const range = legendRange(level, max);
        expect(range, `count ${count} of ${max}`).not.toBeNull();
        const [low, high = low] = (range ?? '').split('–').map(Number);
        expect(count).toBeGreaterThanOrEqual(low ?? Number.NaN);
        expect(count).toBeLessThanOrEqual(high ?? Number.NaN);
      }
    }
  });

  it('leaves out colours that stand for no count', () => {
    expect([1, 2, 3, 4].map((l) => legendRange(l as 1 | 2 | 3 | 4, 2))).toEqual([null, '1', null, '2']);
    expect(legendRange(1, 0)).toBeNull();
  });
});
