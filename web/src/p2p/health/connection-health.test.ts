import { describe, expect, it } from 'vitest';
import {
  combineHealth,
  failedShare,
  formatKbps,
  formatMs,
  formatPercent,
  hintsFor,
  LINK_IDLE_BYTES,
  LOSS_WINDOW_SAMPLES,
  linkIdle,
  linkLoss,
  linkThroughput,
  pushOutcome,
  readLinkSample,
  statusForLatency,
  type ConnectionHealth,
  type LinkSample,
} from './connection-health';

describe('statusForLatency', () => {
  it.each([
    [0.4, 'excellent'],
    [49.9, 'excellent'],
    [50, 'good'],
    [99.9, 'good'],
    [100, 'poor'],
    [199.9, 'poor'],
    [200, 'unstable'],
    [4_000, 'unstable'],
  ] as const)('%d ms is %s', (ms, status) => {
    expect(statusForLatency(ms)).toBe(status);
  });
});

describe('the loss window of server checks', () => {
  it('has no figure before the first check', () => {
    expect(failedShare([])).toBeNull();
  });

  it('is the share of failed checks, in percent', () => {
    let window: boolean[] = [];
    for (const answered of [true, true, false, true]) window = pushOutcome(window, answered);
    expect(failedShare(window)).toBe(25);
  });

  it('forgets checks older than the window', () => {
    let window: boolean[] = [];
    window = pushOutcome(window, false);
    for (let i = 0; i < LOSS_WINDOW_SAMPLES; i++) window = pushOutcome(window, true);
    expect(window).toHaveLength(LOSS_WINDOW_SAMPLES);
    expect(failedShare(window)).toBe(0);
  });
});

describe('readLinkSample', () => {
  it("reads Chromium's transport bytes and its selected candidate pair's checks", () => {
    const stats = [
      { id: 'T01', type: 'transport', bytesSent: 1_000, bytesReceived: 500, selectedCandidatePairId: 'CP2' },
      { id: 'CP1', type: 'candidate-pair', requestsSent: 99, responsesReceived: 0 },
      { id: 'CP2', type: 'candidate-pair', requestsSent: 12, responsesReceived: 11 },
      { id: 'D1', type: 'data-channel', bytesSent: 10, bytesReceived: 10 },
    ];
    expect(readLinkSample(stats, 42)).toEqual({ at: 42, bytes: 1_500, requests: 12, responses: 11 });
  });

  it("falls back to data-channel bytes and Firefox's selected pair", () => {
    const stats = [
      { id: 'D1', type: 'data-channel', bytesSent: 10, bytesReceived: 20 },
      { id: 'D2', type: 'data-channel', bytesSent: 5, bytesReceived: 0 },
      { id: 'P1', type: 'candidate-pair', selected: true, requestsSent: 3, responsesReceived: 3 },
    ];
    expect(readLinkSample(stats, 1)).toEqual({ at: 1, bytes: 35, requests: 3, responses: 3 });
  });

  it('leaves missing or malformed counters unknown', () => {
    const stats = [{ id: 'T', type: 'transport', bytesSent: '7', bytesReceived: 1 }, null, 'junk', { type: 'candidate-pair' }];
    expect(readLinkSample(stats, 0)).toEqual({ at: 0, bytes: null, requests: null, responses: null });
  });
});

const sample = (at: number, bytes: number | null, requests: number | null = 0, responses: number | null = 0): LinkSample => ({
  at,
  bytes,
  requests,
  responses,
});

describe('linkThroughput', () => {
  it('is kbit/s between the last two samples', () => {
    // 62,500 bytes in 5 s: 500,000 bits, 100 kbit/s.
    expect(linkThroughput([sample(0, 0), sample(5_000, 10_000), sample(10_000, 72_500)])).toEqual({
      value: 100,
      basis: expect.any(String),
    });
  });

  it('says why it has no figure yet', () => {
    expect(linkThroughput([])).toMatchObject({ value: null, reason: expect.stringMatching(/two samples/) });
    expect(linkThroughput([sample(0, 0)])).toMatchObject({ value: null });
    expect(linkThroughput([sample(0, null), sample(5_000, null)])).toMatchObject({
      value: null,
      reason: expect.stringMatching(/no byte counters/),
    });
  });
});

describe('an idle room link', () => {
  it(`is one that moved under ${LINK_IDLE_BYTES} bytes over the last check`, () => {
    expect(linkIdle([sample(0, 50_000), sample(5_000, 50_000)])).toBe(true);
    // Keep-alives alone: about 1.8 kB per check in Chromium.
    expect(linkIdle([sample(0, 50_000), sample(5_000, 50_000 + 1_800)])).toBe(true);
    expect(linkIdle([sample(0, 50_000), sample(5_000, 50_000 + LINK_IDLE_BYTES - 1)])).toBe(true);
    expect(linkIdle([sample(0, 50_000), sample(5_000, 50_000 + LINK_IDLE_BYTES)])).toBe(false);
  });

  it('is not known to be idle without two samples with byte counters', () => {
    expect(linkIdle([])).toBe(false);
    expect(linkIdle([sample(0, 0)])).toBe(false);
    expect(linkIdle([sample(0, null), sample(5_000, null)])).toBe(false);
  });
});

describe('linkLoss', () => {
  it('is the share of connectivity checks left unanswered over the window', () => {
    expect(linkLoss([sample(0, 0, 10, 10), sample(5_000, 0, 12, 12), sample(10_000, 0, 30, 28)])).toEqual({
      value: 10,
      basis: expect.stringMatching(/20 connectivity checks on the room link/),
    });
  });

  it('has no figure without checks or counters', () => {
    expect(linkLoss([sample(0, 0, 4, 4), sample(5_000, 0, 4, 4)])).toMatchObject({
      value: null,
      reason: expect.stringMatching(/no connectivity checks/),
    });
    expect(linkLoss([sample(0, 0, null, null), sample(5_000, 0, null, null)])).toMatchObject({
      value: null,
      reason: expect.stringMatching(/no connectivity-check counters/),
    });
  });
});

describe('combineHealth', () => {
  const base = { status: 'good' as const, latencyMs: 60, failure: null, lastSeen: 1 };

  it('without a room: loss from the server checks, throughput asks to join a room', () => {
    const health = combineHealth({ ...base, checks: [true, false, true, true], linkSamples: null });
    expect(health.packetLoss).toMatchObject({ value: 25 });
    expect(health.throughput).toEqual({ value: null, reason: 'join a room to measure' });
  });

  it('in a room: throughput and loss from the room link', () => {
    const health = combineHealth({ ...base, checks: [true], linkSamples: [sample(0, 0, 0, 0), sample(1_000, 1_000, 4, 4)] });
    expect(health.throughput).toMatchObject({ value: 8 });
    expect(health.packetLoss).toMatchObject({ value: 0, basis: expect.stringMatching(/room link/) });
  });

  it("in a room whose link reports no loss yet: the server checks' loss", () => {
    const health = combineHealth({ ...base, checks: [false], linkSamples: [sample(0, 0)] });
    expect(health.packetLoss).toMatchObject({ value: 100, basis: 'unanswered share of 1 server check, last minute' });
  });
});

describe('hintsFor', () => {
  const healthy: ConnectionHealth = {
    status: 'excellent',
    latencyMs: 3,
    failure: null,
    throughput: { value: 5_000, basis: '' },
    linkIdle: false,
    packetLoss: { value: 0, basis: '' },
    lastSeen: 1,
  };
  const ids = (h: ConnectionHealth) => hintsFor(h).map((hint) => hint.id);

  it('has none for a healthy connection', () => {
    expect(hintsFor(healthy)).toEqual([]);
  });

  it('gives each threshold its own hint, only past it', () => {
    expect(ids({ ...healthy, status: 'unstable', latencyMs: 500 })).toEqual(['reconnecting']);
    expect(ids({ ...healthy, status: 'unstable', latencyMs: 501 })).toEqual(['reconnecting', 'latency']);
    expect(ids({ ...healthy, packetLoss: { value: 5, basis: '' } })).toEqual([]);
    expect(ids({ ...healthy, packetLoss: { value: 5.1, basis: '' } })).toEqual(['loss']);
    expect(ids({ ...healthy, throughput: { value: 100, basis: '' } })).toEqual([]);
    expect(ids({ ...healthy, throughput: { value: 99, basis: '' } })).toEqual(['throughput']);
  });

  it('unstable and disconnected say the monitor keeps trying; disconnected says why', () => {
    expect(hintsFor({ ...healthy, status: 'unstable', latencyMs: 250 })[0]?.text).toMatch(
      /^Trying to reconnect automatically.*200 ms or more/,
    );
    const down = hintsFor({ ...healthy, status: 'disconnected', latencyMs: null, failure: 'network error' });
    expect(down[0]?.text).toMatch(/^Trying to reconnect automatically.*network error/);
  });

  it('gives no hint for an unknown figure', () => {
    expect(
      hintsFor({ ...healthy, throughput: { value: null, reason: 'join a room to measure' }, packetLoss: { value: null, reason: '' } }),
    ).toEqual([]);
  });
});

describe('the throughput hint of a room link', () => {
  const inRoom = (bytesInLastCheck: number) =>
    hintsFor(
      combineHealth({
        status: 'excellent',
        latencyMs: 3,
        failure: null,
        lastSeen: 1,
        checks: [true],
        linkSamples: [sample(0, 10_000, 1, 1), sample(5_000, 10_000 + bytesInLastCheck, 2, 2)],
      }),
    ).map((hint) => hint.id);

  it('is absent while the room is idle: nothing is being sent', () => {
    expect(inRoom(0)).toEqual([]);
    expect(inRoom(1_800)).toEqual([]);
  });

  it('shows while data moves slowly: bytes flowing, under 100 kbit/s', () => {
    // 20,000 bytes in 5 s: 32 kbit/s.
    expect(inRoom(20_000)).toEqual(['throughput']);
  });

  it('is absent while data moves fast', () => {
    // 125,000 bytes in 5 s: 200 kbit/s.
    expect(inRoom(125_000)).toEqual([]);
  });

  it('says on the figure when the link was idle', () => {
    const health = combineHealth({
      status: 'good',
      latencyMs: 60,
      failure: null,
      lastSeen: 1,
      checks: [true],
      linkSamples: [sample(0, 10), sample(5_000, 10)],
    });
    expect(health).toMatchObject({ linkIdle: true, throughput: { value: 0, basis: expect.stringMatching(/^idle/) } });
  });
});

describe('figures on screen', () => {
  it('keep a decimal while small, group thousands, and show whole percentages bare', () => {
    expect(formatMs(0.23)).toBe('0.2 ms');
    expect(formatMs(11.4)).toBe('11 ms');
    expect(formatKbps(120_181.4)).toBe('120,181 kbit/s');
    expect(formatPercent(0)).toBe('0 %');
    expect(formatPercent(100 / 3)).toBe('33 %');
  });
});
