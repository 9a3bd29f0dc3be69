import { QueryClientProvider } from '@tanstack/react-query';
import * as Tooltip from '@radix-ui/react-tooltip';
import { useEffect, useState } from 'react';
import { Route, Switch } from 'wouter';
import { AuthProvider } from './auth/AuthProvider';
import { ChatPage } from './chat/ChatPage';
import { lazyScreen } from './components/lazy-screen';
import { Toaster } from './components/ui/Toaster';
import { LoginPage } from './login/LoginPage';
import { NotFound } from './NotFound';
import { createQueryClient } from './query-client';
import { RealtimeProvider } from './realtime/RealtimeProvider';
import { showPendingNotice } from './realtime/session-notice';
import { TamperProtection } from './security/TamperProtection';

// Staff screens and the key checker for buyers: a member's first load carries only login and chat.
const AdvancedSecurityPage = lazyScreen(() => import('./advanced-security/AdvancedSecurityPage').then((m) => m.AdvancedSecurityPage));
const AdminPage = lazyScreen(() => import('./admin/AdminPage').then((m) => m.AdminPage));
const CreatorPage = lazyScreen(() => import('./creator/CreatorPage').then((m) => m.CreatorPage));
const ValidatePage = lazyScreen(() => import('./validate/ValidatePage').then((m) => m.ValidatePage));
const SecurityPage = lazyScreen(() => import('./security-dashboard/SecurityPage').then((m) => m.SecurityPage));
const P2pNetworkPage = lazyScreen(() => import('./p2p/P2pNetworkPage').then((m) => m.P2pNetworkPage));

function Routes() {
  return (
    <Switch>
      <Route path="/" component={LoginPage} />
      <Route path="/login" component={LoginPage} />
      <Route path="/chat" component={ChatPage} />
      <Route path="/security" component={SecurityPage} />
      <Route path="/admin" component={AdminPage} />
      <Route path="/validate" component={ValidatePage} />
      <Route path="/super-admin" component={CreatorPage} />
      <Route path="/advanced-security" component={AdvancedSecurityPage} />
      <Route path="/p2p-network" component={P2pNetworkPage} />
      <Route component={NotFound} />
    </Switch>
  );
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  // Why the previous page signed out (ban, logout in another tab), shown once after the reload.
  useEffect(showPendingNotice, []);
  return (
    <QueryClientProvider client={queryClient}>
      <Tooltip.Provider delayDuration={700} skipDelayDuration={300}>
        <AuthProvider>
          <RealtimeProvider>
            <TamperProtection>
              <Routes />
            </TamperProtection>
            <Toaster />
          </RealtimeProvider>
        </AuthProvider>
      </Tooltip.Provider>
    </QueryClientProvider>
  );
}
