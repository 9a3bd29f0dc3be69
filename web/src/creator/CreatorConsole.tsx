import { useIsFetching } from '@tanstack/react-query';
import { liftEmergency } from '../net/creator-api';
import { AccessKeyDatabase } from './AccessKeyDatabase';
import { ConsoleHeader } from './ConsoleHeader';
import { creatorQueryKeys, isCreatorAuthFailure, useCreatorAction, useMonitoredUsers, useOverview } from './creator-queries';
import { creatorToasts } from './creator-toasts';
import { EmergencyBanner } from './EmergencyBanner';
import { EmergencyShutdownCard } from './EmergencyShutdownCard';
import { MembersCard } from './MembersCard';
import { OverviewCards } from './OverviewCards';
import { PanelError } from './panels/PanelCard';
import { SecurityPanels } from './SecurityPanels';

/** The network creator's console, once the master key was accepted. */
export function CreatorConsole() {
  const overview = useOverview();
  const users = useMonitoredUsers();
  const fetching = useIsFetching({ queryKey: creatorQueryKeys.all }) > 0;
  const lift = useCreatorAction({
    run: () => liftEmergency(),
    success: () => creatorToasts.emergencyLifted,
    failure: (error) => creatorToasts.liftFailed(error),
  });

  const emergency = overview.data?.emergency;

  return (
    <div className="flex min-h-screen flex-col">
      <ConsoleHeader emergency={emergency ? emergency.active : null} refreshing={fetching} />
      <main className="mx-auto grid w-full max-w-7xl grid-cols-1 gap-6 p-4 pb-16">
        {emergency?.active ? (
          <EmergencyBanner emergency={emergency} lifting={lift.isPending} onLift={() => lift.mutate(undefined)} />
        ) : null}
        {overview.isError && !isCreatorAuthFailure(overview.error) ? (
          <PanelError error={overview.error} what="the overview" onRetry={() => void overview.refetch()} />
        ) : null}
        <OverviewCards overview={overview.data} />
        <SecurityPanels />
        <AccessKeyDatabase />
        <MembersCard />
        <EmergencyShutdownCard users={users.data} active={emergency?.active ?? false} />
      </main>
    </div>
  );
}
