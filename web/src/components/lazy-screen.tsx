import { Loader2 } from 'lucide-react';
import { Component, lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { Button } from './ui/Button';

/**
 * A screen whose code loads on its first visit instead of with the app: most members never open
 * the staff screens, so they should not download them.
 *
 * @example
 * const AdminPage = lazyScreen(() => import('../admin/AdminPage').then((m) => m.AdminPage));
 */
export function lazyScreen(load: () => Promise<ComponentType>): ComponentType {
  const Screen = lazy(async () => ({ default: await load() }));
  return function LazyScreen() {
    return (
      <LoadFailure>
        <Suspense fallback={<ScreenLoading />}>
          <Screen />
        </Suspense>
      </LoadFailure>
    );
  };
}

function ScreenLoading() {
  return (
    <main className="flex min-h-screen items-center justify-center gap-2 text-sm text-muted" role="status">
      <Loader2 className="size-4 animate-spin" aria-hidden="true" /> Loading…
    </main>
  );
}

/**
 * A chunk can fail to load (offline, or a new release replaced the files this tab knows of):
 * say so and offer a reload rather than leave a blank page.
 */
class LoadFailure extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="flex min-h-screen flex-col items-center justify-center gap-3 p-4 text-center" role="alert">
        <p className="text-sm text-muted">This screen could not be loaded. Check your connection and reload.</p>
        <Button variant="secondary" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </main>
    );
  }
}
