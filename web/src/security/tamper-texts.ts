/**
 * What each detection is called and says (docs/spec.md §8, "Tamper messages"), and the breach
 * screen's texts. Type names use underscores: they travel as threat vectors (docs/spec.md §3).
 */
export const detectionTypes = {
  debugger: 'debugger_detected',
  devtools: 'devtools_detected',
  modifiedNative: 'modified_native_function',
  cryptoCompromised: 'crypto_api_compromised',
  functionIntegrity: 'function_integrity_violation',
  scriptInjection: 'unauthorized_script_injection',
  rateLimit: 'rate_limit_exceeded',
  lowEntropyToken: 'low_entropy_token',
  invalidTokenFormat: 'invalid_token_format',
  memorySpike: 'memory_spike',
  executionAnomaly: 'execution_time_anomaly',
} as const;

export const detectionTexts = {
  debugger: 'Debugger detected: a debugger statement stopped execution for over 100 ms',
  devtools: 'Developer tools detected: docked developer tools stopped execution',
  modifiedNative: (name: string, when: 'replaced' | 'not_native') =>
    when === 'replaced'
      ? `Modified native function: ${name} was replaced while the page ran`
      : `Modified native function: ${name} is not the browser's own`,
  cryptoCompromised: (detail: string) => `Crypto API compromised: ${detail}`,
  functionIntegrity: (name: string) => `Function integrity violation: ${name} was modified`,
  scriptInjection: (where: string) => `Unauthorized script injection: ${where}`,
  rateLimit: 'Rate limit exceeded: too many sign-in attempts',
  lowEntropyToken: 'Low-entropy token submitted',
  invalidTokenFormat: 'Invalid token format submitted',
  memorySpike: (mb: number) => `Memory spike: the script heap grew by ${mb} MB between two checks`,
  executionAnomaly: (ms: number) => `Execution-time anomaly: an integrity check took ${ms} ms`,
} as const;

export const breachTexts = {
  title: 'SECURITY BREACH DETECTED',
  body: "Tampering was detected in this page. Enclave's data in this browser has been wiped.",
  leaving: 'Returning to the sign-in screen…',
} as const;

/** The login screen's notice of detections that escalate nothing (TamperWarning.tsx). */
export const warningTexts = {
  title: 'Something in this browser is changing this page.',
  body: 'Most likely an extension: it has replaced functions this page uses or added scripts to it. Nothing has been wiped and you can sign in, but an extension that changes this page can also read what you type into it. Sign in here only if you trust your extensions.',
  details: (n: number) => `What was found (${n})`,
} as const;
