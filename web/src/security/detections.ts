/** Detections as recorded (docs/spec.md §3 "Local security event"), built in one place for both detectors. */
import type { Severity } from '@enclave/protocol';
import { nativeFindingSeverity, type NativeFinding } from './natives';
import { scriptOrigin } from './script-injection';
import { detectionTexts, detectionTypes } from './tamper-texts';
import type { Detection } from './threat-state';

/** Which detector found it: the login screen's or the monitor running on every other screen. */
export type DetectionSource = 'login_screen' | 'security_monitor';

export function detection(type: string, severity: Severity, description: string, source: DetectionSource, now: number): Detection {
  return { type, severity, description, timestamp: now, source };
}

export function nativeDetection(f: NativeFinding, source: DetectionSource, now: number): Detection {
  const severity = nativeFindingSeverity(f);
  if (f.kind === 'crypto') {
    const detail = f.when === 'replaced' ? `${f.name} was replaced while the page ran` : `${f.name} is not the browser's own`;
    return detection(detectionTypes.cryptoCompromised, severity, detectionTexts.cryptoCompromised(detail), source, now);
  }
  if (f.kind === 'integrity')
    return detection(detectionTypes.functionIntegrity, severity, detectionTexts.functionIntegrity(f.name), source, now);
  return detection(detectionTypes.modifiedNative, severity, detectionTexts.modifiedNative(f.name, f.when), source, now);
}

/** WebCrypto gave a wrong known answer: whoever answers in its place can read or forge anything. */
export function cryptoSelfTestDetection(source: DetectionSource, now: number): Detection {
  return detection(
    detectionTypes.cryptoCompromised,
    'critical',
    detectionTexts.cryptoCompromised('WebCrypto failed its known-answer test'),
    source,
    now,
  );
}

/** Medium: extensions add script elements routinely, and under the server's CSP a foreign or inline one cannot run. */
export function scriptDetection(src: string | null, origin: string, source: DetectionSource, now: number): Detection {
  return detection(detectionTypes.scriptInjection, 'medium', detectionTexts.scriptInjection(scriptOrigin(src, origin)), source, now);
}

/** The key under which a lasting native-function finding counts once. */
export const nativeKey = (f: NativeFinding): string => `native:${f.name}:${f.when}`;
export const CRYPTO_SELF_TEST_KEY = 'crypto:self_test';
