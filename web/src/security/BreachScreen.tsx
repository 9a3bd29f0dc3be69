import { ShieldAlert } from 'lucide-react';
import { breachTexts } from './tamper-texts';

/** The full-screen breach message; the page returns to / on its own (the detector's timer). */
export function BreachScreen() {
  return (
    <main role="alert" className="fixed inset-0 z-50 grid place-items-center bg-red-950 p-6 text-center">
      <div className="grid max-w-3xl justify-items-center gap-4">
        <span className="grid size-20 place-items-center rounded-full border-2 border-red-400 bg-red-900/60">
          <ShieldAlert className="size-10 text-red-300 motion-safe:animate-pulse" aria-hidden="true" />
        </span>
        <h1 className="text-3xl font-black tracking-widest text-red-100 sm:text-4xl">{breachTexts.title}</h1>
        <p className="text-base text-red-100/90">{breachTexts.body}</p>
        <p className="text-sm text-red-200/70" role="status">
          {breachTexts.leaving}
        </p>
      </div>
    </main>
  );
}
