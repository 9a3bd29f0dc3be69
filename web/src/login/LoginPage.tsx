import { MessageSquare, Shield } from 'lucide-react';
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Link, useSearch } from 'wouter';
import { useAuth } from '../auth/auth-context';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { cn } from '../lib/cn';
import { CreateVaultForm } from './CreateVaultForm';
import { LiabilityDisclaimer, WipeBanner } from './Disclaimers';
import { NetworkLinks, PurchaseKeyButton } from './NetworkLinks';
import { NewTokenPanel } from './NewTokenPanel';
import { OfflineNotice } from './OfflineNotice';
import { SignInForm } from './SignInForm';
import { useWarnBeforeLeaving } from './token-saving';
import { HeroPage } from '../components/HeroPage';
import { TamperWarning } from '../security/TamperWarning';

type Mode = 'signin' | 'create';

/** `?mode=register&key=<key>` (the /validate screen links here) opens create-vault mode. */
function initialFromSearch(search: string): { mode: Mode; key: string } {
  const params = new URLSearchParams(search);
  const mode: Mode = params.get('mode') === 'register' ? 'create' : 'signin';
  return { mode, key: params.get('key')?.trim() ?? '' };
}

/** Takes `key` out of the address bar (keeping the rest), so a reload never sends it to the server. */
function dropKeyFromAddressBar(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('key')) return;
  url.searchParams.delete('key');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

export function LoginPage() {
  const search = useSearch();
  const { state } = useAuth();
  const [initial] = useState(() => initialFromSearch(search));
  // Once read, before any request of this page could carry the URL (as its Referer).
  useLayoutEffect(dropKeyFromAddressBar, []);
  const [mode, setMode] = useState<Mode>(initial.mode);
  const panelId = useId();
  const [prefilledToken, setPrefilledToken] = useState('');
  // The only copy of a freshly issued token lives here until the member continues to login.
  const [issuedToken, setIssuedToken] = useState<string | null>(null);
  const [tokenSaved, setTokenSaved] = useState(false);
  useWarnBeforeLeaving(issuedToken !== null && !tokenSaved);
  // Remount the sign-in form when a new token is handed over, so it starts from that token.
  const [signInGeneration, setSignInGeneration] = useState(0);

  function continueToLogin(accessToken: string) {
    setPrefilledToken(accessToken);
    setIssuedToken(null);
    setTokenSaved(false);
    setSignInGeneration((g) => g + 1);
    setMode('signin');
  }

  return (
    <HeroPage icon={Shield} title="Enclave" subtitle="Secure Communication Network · end-to-end encrypted · invite only">
      {state.status === 'loggedIn' ? (
        <p className="flex items-center justify-center gap-2 rounded-lg border border-border bg-surface p-3 text-sm">
          Signed in as <strong>{state.session.user.username}</strong>.
          <Link href="/chat" className="inline-flex items-center gap-1 text-accent hover:underline">
            <MessageSquare className="size-4" aria-hidden="true" /> Open chat
          </Link>
        </p>
      ) : null}

      <OfflineNotice />
      {mode === 'signin' ? <WipeBanner /> : null}
      <TamperWarning />

      <Card>
        <CardHeader>
          <ModeTabs mode={mode} onSelect={setMode} panelId={panelId} />
          <CardTitle>{mode === 'signin' ? 'Access Network' : 'Create Secure Vault'}</CardTitle>
          <CardDescription>
            {mode === 'signin'
              ? 'Enter your access token. It decrypts your keys in this browser and is never sent.'
              : 'Redeem a purchased one-time access key, choose a username, and your keys are generated in this browser.'}
          </CardDescription>
        </CardHeader>
        <CardContent id={panelId} role="tabpanel" aria-labelledby={`${panelId}-${mode}`} className="grid gap-4">
          {mode === 'signin' ? (
            <SignInForm key={signInGeneration} initialToken={prefilledToken} onSwitchToCreate={() => setMode('create')} />
          ) : issuedToken ? (
            <NewTokenPanel
              accessToken={issuedToken}
              saved={tokenSaved}
              onSavedChange={setTokenSaved}
              onContinue={() => continueToLogin(issuedToken)}
            />
          ) : (
            <CreateVaultForm initialKey={initial.key} onRegistered={setIssuedToken} />
          )}
          <PurchaseKeyButton />
        </CardContent>
      </Card>

      <NetworkLinks />
      <LiabilityDisclaimer />
    </HeroPage>
  );
}

const MODES: readonly { mode: Mode; label: string }[] = [
  { mode: 'signin', label: 'Access Network' },
  { mode: 'create', label: 'Create Vault' },
];

/**
 * The two modes as tabs (WAI-ARIA tabs pattern): only the selected tab is in the Tab order; the
 * arrow keys, Home and End move to and select the others.
 */
function ModeTabs({ mode, onSelect, panelId }: { mode: Mode; onSelect: (mode: Mode) => void; panelId: string }) {
  const tabs = useRef<Partial<Record<Mode, HTMLButtonElement | null>>>({});

  function onKeyDown(event: KeyboardEvent) {
    const at = MODES.findIndex((m) => m.mode === mode);
    const next = {
      ArrowRight: at + 1,
      ArrowDown: at + 1,
      ArrowLeft: at - 1,
      ArrowUp: at - 1,
      Home: 0,
      End: MODES.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = MODES[(next + MODES.length) % MODES.length]!.mode;
    onSelect(target);
    tabs.current[target]?.focus();
  }

  return (
    <div role="tablist" aria-label="Login mode" className="mb-2 grid grid-cols-2 gap-1 rounded-lg bg-background p-1" onKeyDown={onKeyDown}>
      {MODES.map((m) => (
        <ModeTab
          key={m.mode}
          id={`${panelId}-${m.mode}`}
          panelId={panelId}
          selected={mode === m.mode}
          onSelect={() => onSelect(m.mode)}
          tabRef={(el) => {
            tabs.current[m.mode] = el;
          }}
        >
          {m.label}
        </ModeTab>
      ))}
    </div>
  );
}

type ModeTabProps = {
  id: string;
  panelId: string;
  selected: boolean;
  onSelect: () => void;
  tabRef: (el: HTMLButtonElement | null) => void;
  children: ReactNode;
};

function ModeTab({ id, panelId, selected, onSelect, tabRef, children }: ModeTabProps) {
  return (
    <button
      ref={tabRef}
      id={id}
      type="button"
      role="tab"
      aria-selected={selected}
      aria-controls={panelId}
      tabIndex={selected ? 0 : -1}
      onClick={onSelect}
      className={cn(
        'rounded-md px-3 py-1.5 text-sm font-medium transition-colors',
        selected ? 'bg-surface-raised text-foreground shadow' : 'text-muted hover:text-foreground',
      )}
    >
      {children}
    </button>
  );
}
