import { AlertTriangle, CheckCircle2, Circle, FlaskConical, Loader2, Play, XCircle } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Badge, type BadgeProps } from '../../components/ui/Badge';
import { Button } from '../../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../components/ui/Card';
import { cn } from '../../lib/cn';
import { useRealtime } from '../../realtime/realtime-context';
import { formatKbps, formatMs } from './connection-health';
import { pendingResults, runSteps, TEST_DESCRIPTIONS, TEST_NAMES, type Measured, type TestResult, type TestStatus } from './p2p-tests';
import { createSuite } from './suite';

const tones: Record<TestStatus, NonNullable<BadgeProps['tone']>> = {
  pending: 'neutral',
  running: 'accent',
  passed: 'success',
  warning: 'warning',
  failed: 'danger',
};

const icons: Record<TestStatus, typeof Circle> = {
  pending: Circle,
  running: Loader2,
  passed: CheckCircle2,
  warning: AlertTriangle,
  failed: XCircle,
};

const iconColors: Record<TestStatus, string> = {
  pending: 'text-muted',
  running: 'animate-spin text-accent',
  passed: 'text-emerald-400',
  warning: 'text-amber-400',
  failed: 'text-red-400',
};

const notRun = pendingResults((Object.keys(TEST_NAMES) as (keyof typeof TEST_NAMES)[]).map((id) => ({ id, name: TEST_NAMES[id] })));

const formatMeasured = ({ value, unit }: Measured) => (unit === 'ms' ? formatMs(value) : formatKbps(value));

function summary(results: readonly TestResult[], running: boolean): string {
  if (running) {
    const current = results.findIndex((r) => r.status === 'running');
    return current < 0 ? 'Starting…' : `Running ${current + 1} of ${results.length}: ${results[current]!.name}`;
  }
  if (results.every((r) => r.status === 'pending')) return 'Not run yet.';
  const count = (status: TestStatus) => results.filter((r) => r.status === status).length;
  return `Finished: ${count('passed')} passed, ${count('warning')} with a warning, ${count('failed')} failed.`;
}

/** Real checks in sequence: signaling reachable, WebRTC available, loop-back, round-trip time, throughput. */
export function P2pTestSuite() {
  const realtime = useRealtime();
  const [results, setResults] = useState<TestResult[]>(notRun);
  const [running, setRunning] = useState(false);
  // Stops a run when the page is left mid-run: the step under way gives up, no other starts.
  const stopRun = useRef<AbortController | null>(null);
  useEffect(() => () => stopRun.current?.abort(), []);

  const run = async () => {
    const stop = new AbortController();
    stopRun.current = stop;
    const suite = createSuite(realtime);
    setRunning(true);
    try {
      await runSteps(suite.steps, setResults, stop.signal);
    } finally {
      suite.close();
      stopRun.current = null;
      setRunning(false);
    }
  };

  return (
    <Card aria-labelledby="p2p-test-suite-title">
      <CardHeader>
        <div className="flex items-center justify-between gap-3">
          <CardTitle id="p2p-test-suite-title" className="flex items-center gap-2">
            <FlaskConical className="size-5 text-accent" aria-hidden="true" /> P2P test suite
          </CardTitle>
          <Button size="sm" onClick={() => void run()} disabled={running}>
            {running ? <Loader2 className="animate-spin" aria-hidden="true" /> : <Play aria-hidden="true" />}
            {running ? 'Running…' : 'Run tests'}
          </Button>
        </div>
        <CardDescription>
          Real checks of what rooms need, one after another. The loop-back runs between two connections inside this page, so its figures
          describe this device&apos;s WebRTC, not your network.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        <p role="status" className="text-sm text-muted" data-suite-summary>
          {summary(results, running)}
        </p>
        <ol className="grid gap-2" aria-label="P2P tests">
          {results.map((result) => {
            const Icon = icons[result.status];
            return (
              <li
                key={result.id}
                data-p2p-test={result.id}
                data-status={result.status}
                className="rounded-md border border-border bg-surface-raised/40 p-3"
              >
                <div className="flex items-center justify-between gap-3">
                  <span className="flex items-center gap-2 font-medium">
                    <Icon className={cn('size-4', iconColors[result.status])} aria-hidden="true" />
                    {result.name}
                  </span>
                  <span className="flex items-center gap-2">
                    {result.figure && (
                      <span className="text-sm tabular-nums" data-value={result.figure.value}>
                        {formatMeasured(result.figure)}
                      </span>
                    )}
                    <Badge tone={tones[result.status]}>{result.status}</Badge>
                  </span>
                </div>
                <p className="mt-1 text-xs text-muted">{TEST_DESCRIPTIONS[result.id]}</p>
                {result.status !== 'pending' && <p className="mt-1 text-sm">{result.detail}</p>}
              </li>
            );
          })}
        </ol>
      </CardContent>
    </Card>
  );
}
