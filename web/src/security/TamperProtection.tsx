import { useEffect, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { BreachScreen } from './BreachScreen';
import { useBreachScreen } from './breach-screen';
import { startLoginChecks } from './login-checks';
import { runningFeatures, startMonitorChecks } from './security-monitor';
import { checkEnv, loginShield, recordChecked, securityMonitor } from './tamper-runtime';
import { threatStore } from './threat-state';

const LOGIN_PATHS = new Set(['/', '/login']);

/**
 * Runs the login side of tamper detection on the login screen and the hidden security monitor on
 * every other screen (one of them at a time, so no finding counts twice), and shows the breach
 * screen in place of the screens once a detector has wiped the browser.
 */
export function TamperProtection({ children }: { children: ReactNode }) {
  const [path] = useLocation();
  const onLoginScreen = LOGIN_PATHS.has(path);
  const breach = useBreachScreen();

  useEffect(() => {
    const env = checkEnv();
    const stop = onLoginScreen
      ? startLoginChecks(loginShield, env, recordChecked)
      : startMonitorChecks(securityMonitor, env, recordChecked);
    threatStore.running(runningFeatures(onLoginScreen, env));
    return () => {
      stop();
      threatStore.running([]);
    };
  }, [onLoginScreen]);

  return breach ? <BreachScreen /> : children;
}
