import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { cn } from '../lib/cn';

export type PageHeaderProps = {
  /** Drawn before the title; decorative, so mark it `aria-hidden`. */
  icon: ReactNode;
  title: ReactNode;
  /** A line under the title. */
  subtitle?: ReactNode;
  /** Next to the title, such as a status badge. */
  status?: ReactNode;
  /** The right side: who is signed in, buttons, the way back. */
  actions?: ReactNode;
  /** Names the right side as a navigation landmark, for a header that is mostly navigation. */
  actionsLabel?: string;
  /** False where the page's h1 is elsewhere (a sign-in card): the title is then plain text. */
  heading?: boolean;
  /** The width of the page below it. */
  width?: '6xl' | '7xl';
};

/** The bar at the top of the full-page screens (security, P2P, admin, creator console). */
export function PageHeader({ icon, title, subtitle, status, actions, actionsLabel, heading = true, width = '6xl' }: PageHeaderProps) {
  const Title = heading ? 'h1' : 'span';
  const Actions = actionsLabel ? 'nav' : 'div';
  return (
    <header className="border-b border-border bg-surface/80">
      <div
        className={cn('mx-auto flex flex-wrap items-center justify-between gap-3 px-4 py-3', width === '7xl' ? 'max-w-7xl' : 'max-w-6xl')}
      >
        <div className="flex items-center gap-2">
          {icon}
          {subtitle ? (
            <div>
              <Title className="text-lg font-bold leading-tight tracking-tight">{title}</Title>
              <p className="text-xs text-muted">{subtitle}</p>
            </div>
          ) : (
            <Title className="text-lg font-bold tracking-tight">{title}</Title>
          )}
          {status}
        </div>
        {actions ? (
          <Actions aria-label={actionsLabel} className="flex flex-wrap items-center gap-3 text-sm">
            {actions}
          </Actions>
        ) : null}
      </div>
    </header>
  );
}

/** The way back from a full-page screen, for the header's right side. */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className="inline-flex items-center gap-1 text-accent hover:underline">
      <ArrowLeft className="size-4" aria-hidden="true" /> {children}
    </Link>
  );
}

/** Who is signed in, for the header's right side; hidden on a phone, where the room is needed. */
export function SignedInAs({ username }: { username: string }) {
  return (
    <span className="hidden text-muted sm:inline">
      Signed in as <strong className="text-foreground">{username}</strong>
    </span>
  );
}
