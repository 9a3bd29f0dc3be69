import type { Session } from '../auth/auth-context';
import { samePublicIdentity } from '../auth/own-identity';
import type { ThreatState } from '../security/threat-state';
import { checkTexts } from './security-texts';
import { keysNonExtractable, type PinRow, type StatusCheck } from './status-checks';
import { useSessionCheck, useStoredKeysCheck, useWebCryptoCheck } from './use-security-data';

const pending = (id: string, label: string): StatusCheck => ({ id, label, state: 'pending', detail: checkTexts.pending });
const outcome = (id: string, label: string, ok: boolean, pass: string, fail: string): StatusCheck => ({
  id,
  label,
  state: ok ? 'pass' : 'fail',
  detail: ok ? pass : fail,
});

/** The real status of this browser and session, one check each (docs/spec.md §2, security dashboard). */
export function useStatusChecks(session: Session, threat: ThreatState, pins: readonly PinRow[] | undefined): StatusCheck[] {
  const me = useSessionCheck();
  const webCrypto = useWebCryptoCheck();
  const storedKeys = useStoredKeysCheck(session.user.id);
  const t = checkTexts;

  const secureContext = outcome(
    'secure-context',
    t.secureContext.label,
    window.isSecureContext,
    t.secureContext.pass,
    t.secureContext.fail,
  );

  const crypto = webCrypto.isPending
    ? pending('webcrypto', t.webCrypto.label)
    : outcome('webcrypto', t.webCrypto.label, webCrypto.data === true, t.webCrypto.pass, t.webCrypto.fail);

  const keys = storedKeys.isPending
    ? pending('keys', t.keysNonExtractable.label)
    : outcome(
        'keys',
        t.keysNonExtractable.label,
        storedKeys.data != null && keysNonExtractable(storedKeys.data),
        t.keysNonExtractable.pass,
        storedKeys.data == null ? t.keysNonExtractable.missing : t.keysNonExtractable.extractable,
      );

  const sessionValid = me.isPending
    ? pending('session', t.session.label)
    : outcome('session', t.session.label, me.data?.user.id === session.user.id, t.session.pass, t.session.fail);

  const serverKeys = me.isPending
    ? pending('server-keys', t.serverKeys.label)
    : outcome(
        'server-keys',
        t.serverKeys.label,
        me.data !== undefined && samePublicIdentity(session.publicIdentity, me.data),
        t.serverKeys.pass,
        me.data === undefined ? t.session.fail : t.serverKeys.fail,
      );

  const changed = pins?.filter((p) => p.changed).length ?? 0;
  const contacts: StatusCheck =
    pins === undefined
      ? pending('contacts', t.contacts.label)
      : {
          id: 'contacts',
          label: t.contacts.label,
          state: changed === 0 ? 'pass' : 'fail',
          detail: changed > 0 ? t.contacts.fail(changed) : pins.length === 0 ? t.contacts.none : t.contacts.pass(pins.length),
        };

  // Nothing detected proves something only once the detector has run a check.
  const tamper =
    threat.counts.total === 0 && threat.checks.run === 0
      ? { ...pending('tamper', t.tamper.label), detail: t.tamper.waiting }
      : outcome('tamper', t.tamper.label, threat.counts.total === 0, t.tamper.pass(threat.checks.run), t.tamper.fail(threat.counts.total));

  return [secureContext, crypto, keys, sessionValid, serverKeys, contacts, tamper];
}
