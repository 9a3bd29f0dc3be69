/**
 * The identity key pairs test members sign up with, made once per machine and shared by every test
 * process: an RSA-2048 pair costs 0.1-2 s of a busy core, and the integration suite signs up
 * hundreds of members. Each process hands out each pair once, so the members of one test file
 * (one process) still hold distinct keys; each member still gets its own token and its own bundle
 * sealed under it (PBKDF2), as createAccount makes it. Generating the pairs is tested by
 * packages/crypto (account.test.ts). TEST_FRESH_KEYS=1 makes every member's keys with
 * createAccount instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccount, fromBase64, sealPrivateKeys, toBase64, type NewAccount } from '@enclave/crypto';
import { z } from 'zod';

/** A test-only key pair as kept on disk: the PKCS8 private halves and the SPKI public halves, base64. */
const storedPair = z.object({
  encryption: z.string(),
  signing: z.string(),
  encryptionPublicKey: z.string(),
  signingPublicKey: z.string(),
});
type StoredPair = z.infer<typeof storedPair>;

/** Versioned: a change of algorithms names a new directory instead of reading old pairs. */
const directory = path.join(os.tmpdir(), 'enclave-test-identities-v1');
let handedOut = 0;

async function generatePair(): Promise<StoredPair> {
  const [encryption, signing] = await Promise.all([
    crypto.subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, [
      'encrypt',
      'decrypt',
    ]),
    crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']),
  ]);
  const [encryptionPkcs8, signingPkcs8, encryptionSpki, signingSpki] = await Promise.all([
    crypto.subtle.exportKey('pkcs8', encryption.privateKey),
    crypto.subtle.exportKey('pkcs8', signing.privateKey),
    crypto.subtle.exportKey('spki', encryption.publicKey),
    crypto.subtle.exportKey('spki', signing.publicKey),
  ]);
  return {
    encryption: toBase64(new Uint8Array(encryptionPkcs8)),
    signing: toBase64(new Uint8Array(signingPkcs8)),
    encryptionPublicKey: toBase64(new Uint8Array(encryptionSpki)),
    signingPublicKey: toBase64(new Uint8Array(signingSpki)),
  };
}

/** Pair `index`, read from the shared directory, or made and written there (atomically: another process may race). */
async function pairAt(index: number): Promise<StoredPair> {
  const file = path.join(directory, `${index}.json`);
  try {
    return storedPair.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    // Absent or unreadable: made afresh below.
  }
  const pair = await generatePair();
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(pair), { mode: 0o600 });
  fs.renameSync(temporary, file);
  return pair;
}

/**
 * A new member's account as createAccount makes it (public keys, private keys sealed under `token`),
 * from the next key pair this process has not handed out yet.
 */
export async function testAccount(token: string): Promise<Pick<NewAccount, 'publicIdentity' | 'encryptedPrivateKey'>> {
  if (process.env.TEST_FRESH_KEYS === '1') return createAccount(token);
  const pair = await pairAt(handedOut++);
  const encryptedPrivateKey = await sealPrivateKeys(token, { encryption: fromBase64(pair.encryption), signing: fromBase64(pair.signing) });
  return {
    publicIdentity: { encryptionPublicKey: pair.encryptionPublicKey, signingPublicKey: pair.signingPublicKey },
    encryptedPrivateKey,
  };
}
