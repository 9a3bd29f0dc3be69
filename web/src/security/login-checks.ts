/**
 * The login screen's periodic checks (docs/spec.md §9): the debugger and developer-tools probe every
 * 5 s, native functions and WebCrypto every 10 s, and script elements as they appear. Findings go
 * to the {@link LoginShield}, which escalates.
 */
import type { CheckEnv } from './check-env';
import { tamper } from './constants';
import { CRYPTO_SELF_TEST_KEY, cryptoSelfTestDetection, detection, nativeDetection, nativeKey, scriptDetection } from './detections';
import { debuggerStopped, looksDocked } from './devtools';
import type { LoginShield } from './login-shield';
import { cryptoSelfTest, findNativeTampering } from './natives';
import { everyInterval } from './schedule';
import { detectionTexts, detectionTypes } from './tamper-texts';

const SOURCE = 'login_screen';

/** Starts the checks; returns the function that stops them. */
export function startLoginChecks(shield: LoginShield, env: CheckEnv, onChecked: (ran: boolean) => void): () => void {
  const stops: (() => void)[] = [];
  // A relaxed host is where developers work: the probe would stop their debugger every 5 s.
  if (!shield.relaxed) {
    stops.push(
      everyInterval(
        tamper.debuggerCheckIntervalMs,
        () => {
          if (!debuggerStopped(() => env.clock.now())) return;
          const docked = looksDocked(env.geometry());
          shield.detect(
            docked
              ? detection(detectionTypes.devtools, 'high', detectionTexts.devtools, SOURCE, env.wallClock())
              : detection(detectionTypes.debugger, 'high', detectionTexts.debugger, SOURCE, env.wallClock()),
          );
        },
        onChecked,
        env.clock,
        env.timers,
      ),
    );
  }
  stops.push(
    everyInterval(
      tamper.nativeIntegrityIntervalMs,
      () => {
        for (const f of findNativeTampering(env.host, env.captured, env.sourceOf)) {
          shield.detectOnce(nativeKey(f), nativeDetection(f, SOURCE, env.wallClock()));
        }
        void cryptoSelfTest(env.crypto).then((ok) => {
          if (!ok) shield.detectOnce(CRYPTO_SELF_TEST_KEY, cryptoSelfTestDetection(SOURCE, env.wallClock()));
        });
      },
      onChecked,
      env.clock,
      env.timers,
    ),
  );
  stops.push(env.watchScripts((_element, src) => shield.detect(scriptDetection(src, env.origin, SOURCE, env.wallClock()))));
  return () => {
    for (const stop of stops) stop();
  };
}
