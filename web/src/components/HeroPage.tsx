import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from '../lib/cn';

const tones = {
  accent: {
    page: 'bg-[radial-gradient(ellipse_at_top,_#0f2a22_0%,_#07090d_55%)]',
    badge: 'border-accent/40 bg-accent/10',
    icon: 'text-accent',
  },
  creator: {
    page: 'bg-[radial-gradient(ellipse_at_top,_#2a1f0a_0%,_#07090d_55%)]',
    badge: 'border-amber-400/40 bg-amber-400/10',
    icon: 'text-amber-300',
  },
};

type HeroPageProps = {
  icon: LucideIcon;
  title: string;
  subtitle: ReactNode;
  tone?: keyof typeof tones;
  width?: 'md' | 'xl';
  children: ReactNode;
};

/** A centred single-column page under a large icon and title: login, key validation, creator sign-in. */
export function HeroPage({ icon: Icon, title, subtitle, tone = 'accent', width = 'md', children }: HeroPageProps) {
  const t = tones[tone];
  return (
    <main className={cn('flex min-h-screen items-start justify-center px-4 py-10', t.page)}>
      <div className={cn('grid w-full gap-5', width === 'md' ? 'max-w-md' : 'max-w-xl')}>
        <header className="grid justify-items-center gap-2 text-center">
          <span className={cn('grid size-14 place-items-center rounded-2xl border', t.badge)}>
            <Icon className={cn('size-7', t.icon)} aria-hidden="true" />
          </span>
          <h1 className="text-3xl font-bold tracking-tight">{title}</h1>
          <p className="text-sm text-muted">{subtitle}</p>
        </header>
        {children}
      </div>
    </main>
  );
}
