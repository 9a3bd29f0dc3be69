import { ArrowLeft, ShieldCheck } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { creatorQueryKeys, useMasterKey } from '../creator/creator-queries';
import { MasterKeyCard } from '../creator/MasterKeyCard';
import { useThreatState } from '../security/threat-state';
import { pageTexts as t } from './advanced-security-texts';
import { BlockedAddresses } from './BlockedAddresses';
import { CommandCenter } from './CommandCenter';
import { ProtectionFeatures } from './ProtectionFeatures';
import { RealTimeMonitor } from './RealTimeMonitor';
import { useBlockedIps, useBlockIp, useLiveEvents, useSecurityMetrics } from './security-queries';
import { combineThreat, recentThreatVectors } from './threat-model';

/**
 * /advanced-security: the creator's Command Center. Like the console, it asks for the master key
 * first (the server refuses every call of this page without it) and shares the console's session.
 */
export function AdvancedSecurityPage() {
  const masterKey = useMasterKey();
  return masterKey ? <AdvancedSecurity /> : <MasterKeyCard subtitle={t.signInSubtitle} />;
}

function AdvancedSecurity() {
  const queryClient = useQueryClient();
  const [live, setLive] = useState(true);
  const events = useLiveEvents(live);
  const metrics = useSecurityMetrics(live);
  const blocked = useBlockedIps(live);
  const block = useBlockIp();
  const local = useThreatState();

  const network = metrics.data?.metrics;
  const threat = combineThreat(network, local);
  const vectors = events.data ? recentThreatVectors(events.data, local.detections) : null;
  const blockedSet = new Set((blocked.data ?? []).map((b) => b.ip));

  return (
    <div className="flex min-h-screen flex-col bg-[radial-gradient(ellipse_at_top,_#0f2a22_0%,_#07090d_45%)]">
      <header className="border-b border-border bg-surface/80">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <Button variant="ghost" size="sm" asChild>
            {/* The console's figures were fetched before this page opened: marked stale, they are fetched again as it mounts. */}
            <Link
              href="/super-admin"
              onClick={() => void queryClient.invalidateQueries({ queryKey: creatorQueryKeys.all, refetchType: 'none' })}
            >
              <ArrowLeft aria-hidden="true" /> {t.back}
            </Link>
          </Button>
          <Badge tone="accent" className="px-3 py-1 text-sm">
            <ShieldCheck aria-hidden="true" /> {t.label}
          </Badge>
        </div>
      </header>
      <main className="mx-auto grid w-full max-w-7xl grid-cols-1 gap-6 p-4 pb-16">
        <div className="grid gap-1 pt-2">
          <h1 className="text-3xl font-bold tracking-tight">{t.title}</h1>
          <p className="text-muted">{t.subtitle}</p>
        </div>
        <CommandCenter
          threat={threat}
          networkScore={network ? network.threatScore : null}
          localScore={local.score}
          vectors={vectors}
          live={live}
        />
        <RealTimeMonitor
          metrics={network}
          events={events.data}
          blockedIps={blockedSet}
          live={live}
          onToggleLive={() => setLive((l) => !l)}
          onBlock={(ip) => block.mutate(ip)}
          blocking={block.isPending ? (block.variables ?? null) : null}
        />
        <ProtectionFeatures />
        <BlockedAddresses blocked={blocked.data} error={blocked.error} onRetry={() => void blocked.refetch()} />
      </main>
    </div>
  );
}
