/**
 * Lays the heatmap's hourly counts (hour × type, UTC hour starts) out as local days × 24 hours,
 * the shape people read a week in.
 */
import type { Heatmap } from '@enclave/protocol';

const HOUR_MS = 60 * 60 * 1000;

export type HeatmapCell = {
  /** Start of the local hour, ISO (for people: the title; for tests: a stable handle). */
  iso: string;
  hour: number;
  /** Inside the last 7 days the server counted. */
  inWindow: boolean;
  count: number;
  byType: { type: string; count: number }[];
};

export type HeatmapDay = { date: Date; cells: HeatmapCell[] };

export type HeatmapGrid = {
  days: HeatmapDay[];
  /** The largest count of one cell (0 when there are no events). */
  max: number;
  total: number;
  /** Events per type over the whole window, most frequent first. */
  types: { type: string; count: number }[];
};

/** Start of the local hour that contains `time`. */
export function localHourStart(time: Date): Date {
  const d = new Date(time);
  d.setMinutes(0, 0, 0);
  return d;
}

/** Builds the grid, counting only `type` when given. */
export function buildHeatmapGrid(heatmap: Heatmap, type: string | null = null): HeatmapGrid {
  const from = new Date(heatmap.from).getTime();
  const to = new Date(heatmap.to).getTime();

  const perHour = new Map<number, Map<string, number>>();
  const perType = new Map<string, number>();
  for (const cell of heatmap.cells) {
    perType.set(cell.type, (perType.get(cell.type) ?? 0) + cell.count);
    const key = localHourStart(new Date(cell.hour)).getTime();
    const types = perHour.get(key) ?? new Map<string, number>();
    types.set(cell.type, (types.get(cell.type) ?? 0) + cell.count);
    perHour.set(key, types);
  }

  const days: HeatmapDay[] = [];
  let max = 0;
  let total = 0;
  const first = new Date(from);
  first.setHours(0, 0, 0, 0);
  for (let day = first; day.getTime() <= to; day = new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1)) {
    const cells: HeatmapCell[] = [];
    for (let hour = 0; hour < 24; hour++) {
      const start = new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour);
      const types = perHour.get(start.getTime());
      const byType = [...(types ?? new Map<string, number>()).entries()]
        .filter(([t]) => type === null || t === type)
        .map(([t, count]) => ({ type: t, count }))
        .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
      const count = byType.reduce((sum, t) => sum + t.count, 0);
      max = Math.max(max, count);
      total += count;
      cells.push({
        iso: start.toISOString(),
        hour,
        inWindow: start.getTime() + HOUR_MS > from && start.getTime() <= to,
        count,
        byType,
      });
    }
    days.push({ date: day, cells });
  }

  const types = [...perType.entries()]
    .map(([t, count]) => ({ type: t, count }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
  return { days, max, total, types };
}

/** 0 for no events, else 1 to 4 by share of the busiest hour. */
export function intensity(count: number, max: number): 0 | 1 | 2 | 3 | 4 {
  if (count <= 0 || max <= 0) return 0;
  return Math.min(4, Math.max(1, Math.ceil((count / max) * 4))) as 1 | 2 | 3 | 4;
}

/** The count range one colour stands for, given the busiest hour (null: none). */
export function legendRange(level: 1 | 2 | 3 | 4, max: number): string | null {
  if (max <= 0) return null;
  const low = Math.floor(((level - 1) * max) / 4) + 1;
  const high = Math.floor((level * max) / 4);
  if (high < low) return null;
  return low === high ? String(low) : `${low}–${high}`;
}

/** Event types are snake_case on the wire; people read them with spaces. */
export function eventTypeLabel(type: string): string {
  return type.replaceAll('_', ' ');
}
