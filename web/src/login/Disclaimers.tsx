import { AlertTriangle, Scale } from 'lucide-react';

/** The network-wide wipe banner of the sign-in mode. */
export function WipeBanner() {
  return (
    <div role="note" className="flex gap-3 rounded-lg border border-red-500/40 bg-red-950/40 p-3 text-sm text-red-200">
      <AlertTriangle className="mt-0.5 size-4 shrink-0 text-red-400" aria-hidden="true" />
      <p>
        <strong className="font-semibold">Network-wide wipe protocol active.</strong> Failed login attempts are monitored across the network
        and trigger an automatic data wipe.
      </p>
    </div>
  );
}

/** The legal liability disclaimer shown under the sign-in form. */
export function LiabilityDisclaimer() {
  return (
    <section aria-label="Legal disclaimer" className="rounded-lg border border-border bg-surface/60 p-4 text-xs leading-relaxed text-muted">
      <h3 className="mb-1 flex items-center gap-1.5 font-semibold text-foreground">
        <Scale className="size-3.5" aria-hidden="true" /> Legal Disclaimer
      </h3>
      <p>
        By accessing this network you accept full liability for your use of it and for all content you send. You agree never to sue the
        platform, its operators or its distributors, and to indemnify and hold them harmless against any claim, loss or damage arising from
        your use of the network.
      </p>
    </section>
  );
}

/** The shorter liability agreement of the sign-up step. */
export function SignUpAgreement() {
  return (
    <p role="note" className="rounded-lg border border-amber-500/30 bg-amber-950/30 p-3 text-xs leading-relaxed text-amber-200">
      <strong className="font-semibold">Liability agreement:</strong> by creating a vault you accept sole responsibility for your account
      and your access token, and you agree not to hold the platform liable for any loss.
    </p>
  );
}
