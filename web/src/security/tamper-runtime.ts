/**
 * The detectors of this page, wired to the browser: one login shield and one security monitor per
 * page load (their counts must survive moving between screens, and a wipe ends with a full load of
 * /), the threat store they record in, and the countermeasures they take.
 */
import { TAMPER_RELAXED_HOSTS } from '../config';
import { callLoginDecoys, callMonitorDecoy, reportBreach } from '../net/security-api';
import { breachScreen } from './breach-screen';
import { browserCheckEnv, type CheckEnv } from './check-env';
import { detection } from './detections';
import { LoginShield } from './login-shield';
import { isRelaxedHost } from './relaxed-hosts';
import { SecurityMonitor } from './security-monitor';
import { detectionTexts, detectionTypes } from './tamper-texts';
import { threatStore, type Detection } from './threat-state';
import { tokenIntegrityFinding } from './token-integrity';
import { wipeBrowser } from './wipe';

const relaxed = isRelaxedHost(window.location.hostname, TAMPER_RELAXED_HOSTS);

const common = {
  record: (d: Detection) => threatStore.record(d),
  countermeasure: (name: string) => threatStore.countermeasure(name),
  later: (ms: number, run: () => void) => void window.setTimeout(run, ms),
  wipe: () => wipeBrowser({ pins: 'keep' }),
  showBreach: () => breachScreen.show(),
  leave: () => window.location.assign('/'),
};

export const loginShield = new LoginShield({ ...common, decoys: callLoginDecoys }, relaxed);

export const securityMonitor = new SecurityMonitor(
  {
    ...common,
    decoy: callMonitorDecoy,
    report: (report) => reportBreach(report).catch((error: unknown) => console.error('the breach report failed', error)),
    state: () => threatStore.get(),
  },
  relaxed,
  () => Date.now(),
);

let env: CheckEnv | null = null;

/** The browser environment of the checks, made on first use. */
export function checkEnv(): CheckEnv {
  return (env ??= browserCheckEnv());
}

export const recordChecked = (ran: boolean): void => threatStore.checked(ran);

/**
 * The login form refused an attempt over the client's rate limit (docs/spec.md §5: a tamper
 * attempt). High, like a forged token below: guessing at the token is the attack the login side's
 * strikes are for.
 */
export function reportRateLimitExceeded(): void {
  loginShield.detect(detection(detectionTypes.rateLimit, 'high', detectionTexts.rateLimit, 'login_screen', Date.now()));
}

/** The login form refused a token on integrity (docs/spec.md §5); a token that is only too short is no detection. */
export function reportRefusedToken(token: string): void {
  const finding = tokenIntegrityFinding(token);
  if (finding) loginShield.detect(detection(finding.type, 'high', finding.description, 'login_screen', Date.now()));
}
