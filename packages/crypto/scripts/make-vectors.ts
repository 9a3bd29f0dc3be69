/**
 * Writes src/vectors.json: known answers for the package's key derivations and encryptions,
 * computed with node:crypto (OpenSSL) instead of WebCrypto, so the tests compare two independent
 * implementations of the same specification (docs/security.md §2-§4). Deliberately imports
 * nothing from src/. Run with `npm run vectors -w packages/crypto` and commit the result; rerunning
 * gives the same file, since every input is derived from a fixed label.
 */
import {
  createCipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  pbkdf2Sync,
} from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `n` fixed pseudo-random bytes named by `label` (SHAKE-256 as an extendable-output function). */
function fixedBytes(label: string, n: number): Buffer {
  return createHash('shake256', { outputLength: n }).update(`enclave vectors: ${label}`).digest();
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const c of counts.values()) bits -= (c / s.length) * Math.log2(c / s.length);
  return bits;
}

/** A valid access token: the generator refuses a label whose bytes would fail the token rules. */
function fixedToken(label: string): string {
  const token = fixedBytes(label, 32).toString('hex');
  if (entropy(token) < 3.5) throw new Error(`token "${label}" is under the entropy floor; pick another label`);
  return token;
}

function loginKey(token: string): string {
  const bits = hkdfSync('sha256', Buffer.from(token, 'hex'), 'enclave/login/v1', 'login', 32);
  return Buffer.from(bits).toString('hex');
}

function aesGcm(key: Buffer, iv: Buffer, plaintext: Buffer, aad?: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad) cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function bundleVector() {
  const token = fixedToken('bundle token');
  // Shaped like the real thing (DER SEQUENCE, typical lengths) but not valid keys: the vector pins
  // the sealing, and opening it must fail at key import, after decryption succeeded.
  const encryptionPkcs8 = Buffer.concat([Buffer.from('308204bd', 'hex'), fixedBytes('rsa pkcs8', 1213)]);
  const signingPkcs8 = Buffer.concat([Buffer.from('30818702', 'hex'), fixedBytes('ec pkcs8', 134)]);
  const salt = fixedBytes('bundle salt', 16);
  const iv = fixedBytes('bundle iv', 12);
  const plaintext = JSON.stringify({
    v: 1,
    encryption: encryptionPkcs8.toString('base64'),
    signing: signingPkcs8.toString('base64'),
  });
  const key = pbkdf2Sync(Buffer.from(token, 'utf8'), salt, 100_000, 32, 'sha256');
  const ciphertext = aesGcm(key, iv, Buffer.from(plaintext, 'utf8'));
  return {
    token,
    encryptionPkcs8Hex: encryptionPkcs8.toString('hex'),
    signingPkcs8Hex: signingPkcs8.toString('hex'),
    saltHex: salt.toString('hex'),
    ivHex: iv.toString('hex'),
    encryptedPrivateKey: Buffer.concat([salt, iv, ciphertext]).toString('base64'),
  };
}

function messageVector() {
  const chainKey = fixedBytes('chain key', 32);
  const conversationId = 'general';
  const senderId = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
  const epochId = '0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
  const plaintext = 'Grüße aus der Enclave 🔐 — "quoted", \\ backslash';
  const iv = fixedBytes('message iv', 12);
  const cases = [0, 7].map((index) => {
    const info = Buffer.concat([Buffer.from('msg', 'utf8'), Buffer.from([0, 0, 0, index])]);
    const key = Buffer.from(hkdfSync('sha256', chainKey, Buffer.alloc(0), info, 32));
    const aad = Buffer.from(JSON.stringify(['enclave/msg/v1', conversationId, senderId, epochId, index]), 'utf8');
    return {
      index,
      messageKeyHex: key.toString('hex'),
      aadHex: aad.toString('hex'),
      ctBase64: aesGcm(key, iv, Buffer.from(plaintext, 'utf8'), aad).toString('base64'),
    };
  });
  return { chainKeyHex: chainKey.toString('hex'), conversationId, senderId, epochId, plaintext, ivHex: iv.toString('hex'), cases };
}

function fingerprintVector() {
  // fingerprint() never parses the keys, so fixed bytes of SPKI lengths stand in for them.
  const encryption = fixedBytes('encryption spki', 294);
  const signing = fixedBytes('signing spki', 91);
  const digest = createHash('sha256').update(encryption).update(signing).digest();
  const decimal = BigInt(`0x${digest.toString('hex')}`)
    .toString(10)
    .padStart(78, '0')
    .slice(-60);
  return {
    encryptionPublicKey: encryption.toString('base64'),
    signingPublicKey: signing.toString('base64'),
    fingerprint: (decimal.match(/\d{5}/g) ?? []).join(' '),
  };
}

function sixtyDigits(digest: Buffer): string {
  const decimal = BigInt(`0x${digest.toString('hex')}`)
    .toString(10)
    .padStart(78, '0')
    .slice(-60);
  return (decimal.match(/\d{5}/g) ?? []).join(' ');
}

function safetyNumberVector() {
  // Two fingerprints as fingerprint() shows them, from fixed bytes; the safety number hashes them
  // in sorted order under its label.
  const [a, b] = ['safety number a', 'safety number b'].map((label) => sixtyDigits(fixedBytes(label, 32)));
  const [low, high] = [a!, b!].sort();
  const digest = createHash('sha256').update(`enclave/safety-number/v1\n${low}\n${high}`, 'utf8').digest();
  return { fingerprintA: a!, fingerprintB: b!, safetyNumber: sixtyDigits(digest) };
}

function attachmentVector() {
  const key = fixedBytes('attachment key', 32);
  const iv = fixedBytes('attachment iv', 12);
  // Not a multiple of the AES block, with every byte value in it.
  const plaintext = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), fixedBytes('attachment plaintext', 45)]);
  const ciphertext = aesGcm(key, iv, plaintext, Buffer.from('enclave/attachment/v1', 'utf8'));
  return {
    keyBase64: key.toString('base64'),
    ivBase64: iv.toString('base64'),
    plaintextHex: plaintext.toString('hex'),
    ciphertextBase64: ciphertext.toString('base64'),
    sha256Base64: createHash('sha256').update(ciphertext).digest('base64'),
  };
}

function bodyMessageVector() {
  // A v2 (structured body) message differs from v1 only by its context in the associated data.
  const chainKey = fixedBytes('chain key', 32);
  const [conversationId, senderId, epochId, index] = [
    'general',
    '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    '0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b',
    3,
  ];
  const plaintext = JSON.stringify({ v: 2, caption: 'a body' });
  const iv = fixedBytes('message iv', 12);
  const info = Buffer.concat([Buffer.from('msg', 'utf8'), Buffer.from([0, 0, 0, index])]);
  const key = Buffer.from(hkdfSync('sha256', chainKey, Buffer.alloc(0), info, 32));
  const aad = Buffer.from(JSON.stringify(['enclave/msg/v2', conversationId, senderId, epochId, index]), 'utf8');
  return {
    index,
    plaintext,
    aadHex: aad.toString('hex'),
    ctBase64: aesGcm(key, iv, Buffer.from(plaintext, 'utf8'), aad).toString('base64'),
  };
}

/** An X25519 key pair from 32 fixed bytes (PKCS8 is the fixed prefix followed by the private scalar). */
function x25519Pair(label: string) {
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), fixedBytes(label, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    privateKey,
    pkcs8Hex: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('hex'),
    publicBase64: raw.toString('base64'),
  };
}

function channelKeysVector() {
  const [conversationId, epochId, wrapperId, recipientId, senderId, senderEpochId] = [
    'general',
    '3c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f',
    '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    '1a2b3c4d-5e6f-4a0b-9c1d-2e3f4a5b6c7d',
    '7d6c5b4a-3f2e-4d1c-8b0a-9f8e7d6c5b4a',
    '0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b',
  ];
  const hmac = (key: Buffer, fields: (string | number)[]) => createHmac('sha256', key).update(JSON.stringify(fields), 'utf8').digest();
  const secrets = [fixedBytes('channel secret', 32)];
  for (let g = 1; g <= 2; g++) secrets.push(hmac(secrets[g - 1]!, ['enclave/channel-join/v1', conversationId, epochId, g]));
  const generation = 2;
  const chain = hmac(secrets[generation]!, ['enclave/channel-sender/v1', conversationId, epochId, generation, senderId, senderEpochId]);
  // Message 0 of that sender epoch, as message.ts encrypts it under the derived chain.
  const iv = fixedBytes('message iv', 12);
  const plaintext = 'derived from the channel secret';
  const messageKey = Buffer.from(
    hkdfSync('sha256', chain, Buffer.alloc(0), Buffer.concat([Buffer.from('msg', 'utf8'), Buffer.from([0, 0, 0, 0])]), 32),
  );
  const aad = Buffer.from(JSON.stringify(['enclave/msg/v1', conversationId, senderId, senderEpochId, 0]), 'utf8');
  // One share of generation 2, wrapped with a fixed ephemeral key for a fixed recipient.
  const ephemeral = x25519Pair('channel ephemeral');
  const recipient = x25519Pair('channel recipient');
  const agreed = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: createPublicKey(recipient.privateKey) });
  const info = JSON.stringify([
    'enclave/channel-share/v1',
    conversationId,
    epochId,
    generation,
    wrapperId,
    ephemeral.publicBase64,
    recipientId,
    recipient.publicBase64,
  ]);
  const kek = Buffer.from(hkdfSync('sha256', agreed, Buffer.alloc(0), Buffer.from(info, 'utf8'), 32));
  const wrap = createCipheriv('id-aes256-wrap', kek, Buffer.from('a6a6a6a6a6a6a6a6', 'hex'));
  const wrappedKey = Buffer.concat([wrap.update(secrets[generation]!), wrap.final()]);
  // A member's share key, derived from the PKCS8 of their signing key as sealed in the bundle.
  const signingPkcs8 = Buffer.from(bundleVector().signingPkcs8Hex, 'hex');
  const scalar = Buffer.from(hkdfSync('sha256', signingPkcs8, Buffer.alloc(0), 'enclave/share-key/v1', 32));
  const derived = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), scalar]),
    format: 'der',
    type: 'pkcs8',
  });
  return {
    signingPkcs8Hex: signingPkcs8.toString('hex'),
    sharePublicKey: createPublicKey(derived).export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    conversationId,
    epochId,
    wrapperId,
    recipientId,
    senderId,
    senderEpochId,
    secretsHex: secrets.map((s) => s.toString('hex')),
    ivHex: iv.toString('hex'),
    plaintext,
    messageCtBase64: aesGcm(messageKey, iv, Buffer.from(plaintext, 'utf8'), aad).toString('base64'),
    ephemeralPublicKey: ephemeral.publicBase64,
    recipientPkcs8Hex: recipient.pkcs8Hex,
    recipientPublicKey: recipient.publicBase64,
    wrappedKey: wrappedKey.toString('base64'),
  };
}

const vectors = {
  generatedBy: 'packages/crypto/scripts/make-vectors.ts (node:crypto); do not edit by hand',
  loginKey: ['login token 1', 'login token 2', 'login token 3'].map((label) => {
    const token = fixedToken(label);
    return { token, loginKey: loginKey(token) };
  }),
  bundle: bundleVector(),
  message: messageVector(),
  bodyMessage: bodyMessageVector(),
  attachment: attachmentVector(),
  fingerprint: fingerprintVector(),
  safetyNumber: safetyNumberVector(),
  channelKeys: channelKeysVector(),
};

const target = fileURLToPath(new URL('../src/vectors.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(vectors, null, 2)}\n`);
console.log(`wrote ${target}`);
