/** The table's rows for the routes whose input is a JSON body: keys, registration, login, epochs, sends. */
import { randomUUID } from 'node:crypto';
import { toBase64 } from '@enclave/crypto';
import { errorTexts, limits, messageEnvelopeSchema } from '@enclave/protocol';
import { expect } from 'vitest';
import { bodyBasics, EPOCH_BODY_LIMIT, upper, type Fixture, type Row } from './table';

export const bodyRows: Row[] = [
  // ------------------------------------------------------------ POST /api/keys/validate (public)
  ...bodyBasics('POST /api/keys/validate', 'anonymous'),
  ...(
    [
      ['inviteKey of the wrong type', { inviteKey: 42 }, /inviteKey: .*expected string, received number/],
      ['inviteKey missing', {}, /inviteKey: .*expected string, received undefined/],
      ['an extra field', { inviteKey: 'a'.repeat(64), extra: true }, /Unrecognized key.*"extra"/],
      ['inviteKey over 256 characters', { inviteKey: 'a'.repeat(257) }, /inviteKey: Too big/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/keys/validate — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/keys/validate',
    body,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/auth/register (public)
  ...bodyBasics('POST /api/auth/register', 'anonymous'),
  ...(
    [
      [
        'username of the wrong type',
        (f: Fixture) => ({ ...f.registerBody(), username: 5 }),
        400,
        /username: .*expected string, received number/,
      ],
      [
        'loginKey of the wrong type',
        (f: Fixture) => ({ ...f.registerBody(), loginKey: true }),
        400,
        /loginKey: .*expected string, received boolean/,
      ],
      [
        'public keys of the wrong type',
        (f: Fixture) => ({ ...f.registerBody(), encryptionPublicKey: ['x'] }),
        400,
        /encryptionPublicKey: .*expected string, received array/,
      ],
      ['every field missing', {}, 400, /inviteKey: .*username: .*loginKey: /],
      [
        'encryptedPrivateKey missing',
        (f: Fixture) => ({ ...f.registerBody(), encryptedPrivateKey: undefined }),
        400,
        /encryptedPrivateKey: .*expected string, received undefined/,
      ],
      [
        'an extra field (the access token itself)',
        (f: Fixture) => ({ ...f.registerBody(), accessToken: 'a'.repeat(64) }),
        400,
        /Unrecognized key.*"accessToken"/,
      ],
      [
        'invite key in upper case',
        (f: Fixture) => ({ ...f.registerBody(), inviteKey: upper(f.freshKey) }),
        400,
        /inviteKey: Please enter a valid 64-character access key/,
      ],
      [
        'username with a space and "!"',
        (f: Fixture) => ({ ...f.registerBody(), username: 'bad name!' }),
        400,
        /Username may contain letters, digits, dot, dash and underscore only/,
      ],
      [
        'username of 33 characters',
        (f: Fixture) => ({ ...f.registerBody(), username: 'u'.repeat(33) }),
        400,
        /Username must be at most 32 characters/,
      ],
      ['username empty', (f: Fixture) => ({ ...f.registerBody(), username: '   ' }), 400, /Please enter a username/],
      [
        'loginKey of 63 characters',
        (f: Fixture) => ({ ...f.registerBody(), loginKey: 'a'.repeat(63) }),
        400,
        /loginKey: must be 64 lowercase hexadecimal characters/,
      ],
      [
        'public key that is not base64',
        (f: Fixture) => ({ ...f.registerBody(), signingPublicKey: '!'.repeat(124) }),
        400,
        /signingPublicKey: must be base64/,
      ],
      [
        'key bundle too short',
        (f: Fixture) => ({ ...f.registerBody(), encryptedPrivateKey: 'AAAA' }),
        400,
        /encryptedPrivateKey: must be an encrypted key bundle/,
      ],
      ['the reserved username', (f: Fixture) => ({ ...f.registerBody(), username: 'ADMIN' }), 409, /This username is reserved/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/auth/register — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/auth/register',
    body,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/auth/login (public)
  ...bodyBasics('POST /api/auth/login', 'anonymous'),
  ...(
    [
      ['loginKey of the wrong type', { loginKey: 123 }, /loginKey: .*expected string, received number/],
      ['loginKey missing', {}, /loginKey: .*expected string, received undefined/],
      [
        'an extra field (the access token itself)',
        { loginKey: 'a'.repeat(64), accessToken: 'b'.repeat(64) },
        /Unrecognized key.*"accessToken"/,
      ],
      ['loginKey in upper case', { loginKey: 'A'.repeat(64) }, /loginKey: must be 64 lowercase hexadecimal characters/],
      ['loginKey of 65 characters', { loginKey: 'a'.repeat(65) }, /loginKey: must be 64 lowercase hexadecimal characters/],
      [
        'browserId in upper case',
        { loginKey: 'a'.repeat(64), browserId: 'A'.repeat(32) },
        /browserId: must be 32 lowercase hexadecimal characters/,
      ],
      [
        'browserId of 31 characters',
        { loginKey: 'a'.repeat(64), browserId: 'a'.repeat(31) },
        /browserId: must be 32 lowercase hexadecimal characters/,
      ],
      ['browserId of the wrong type', { loginKey: 'a'.repeat(64), browserId: 12345 }, /browserId: .*expected string, received number/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/auth/login — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/auth/login',
    body,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/epochs (member)
  ...bodyBasics('POST /api/epochs', 'member', EPOCH_BODY_LIMIT),
  ...(
    [
      [
        'membershipVersion of the wrong type',
        (f: Fixture) => ({ ...f.epochBody(), membershipVersion: '0' }),
        400,
        /membershipVersion: .*expected number, received string/,
      ],
      ['shares of the wrong type', (f: Fixture) => ({ ...f.epochBody(), shares: {} }), 400, /shares: .*expected array, received object/],
      ['shares missing', (f: Fixture) => ({ ...f.epochBody(), shares: undefined }), 400, /shares: .*expected array, received undefined/],
      ['every field missing', {}, 400, /epochId: .*receiverId: .*membershipVersion: .*shares: /],
      ['an extra field (a chain key)', (f: Fixture) => ({ ...f.epochBody(), chainKey: 'AAAA' }), 400, /Unrecognized key.*"chainKey"/],
      [
        'an extra field inside a share',
        (f: Fixture) => {
          const b = f.epochBody();
          b.shares[0] = { ...b.shares[0], extra: 1 };
          return b;
        },
        400,
        /shares\.0: Unrecognized key.*"extra"/,
      ],
      ['no shares at all', (f: Fixture) => ({ ...f.epochBody(), shares: [] }), 400, /shares: Too small/],
      ["receiverId 'everyone'", (f: Fixture) => ({ ...f.epochBody(), receiverId: 'everyone' }), 400, /receiverId: /],
      ['epochId not a uuid', (f: Fixture) => ({ ...f.epochBody(), epochId: 'epoch-1' }), 400, /epochId: must be an epoch id/],
      ['membershipVersion -1', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: -1 }), 400, /membershipVersion: Too small/],
      ['membershipVersion 1.5', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: 1.5 }), 400, /membershipVersion: .*expected int/],
      [
        'wrappedKey not base64',
        (f: Fixture) => {
          const b = f.epochBody();
          b.shares[0] = { ...b.shares[0], wrappedKey: '*'.repeat(344) };
          return b;
        },
        400,
        /shares\.0\.wrappedKey: must be base64/,
      ],
      [
        'signature too short',
        (f: Fixture) => {
          const b = f.epochBody();
          b.shares[0] = { ...b.shares[0], signature: 'AAAA' };
          return b;
        },
        400,
        /shares\.0\.signature: must be a signature/,
      ],
      [
        'recipientId not a uuid',
        (f: Fixture) => {
          const b = f.epochBody();
          b.shares[0] = { ...b.shares[0], recipientId: 'bob' };
          return b;
        },
        400,
        /shares\.0\.recipientId: must be a user id/,
      ],
      ['receiverId is the caller', (f: Fixture) => ({ ...f.epochBody(), receiverId: f.alice.id }), 400, /You cannot message yourself/],
      [
        'receiverId is the caller, in upper case',
        (f: Fixture) => ({ ...f.epochBody(), receiverId: upper(f.alice.id) }),
        400,
        /You cannot message yourself/,
      ],
      ['receiverId an unknown member', (f: Fixture) => ({ ...f.epochBody(), receiverId: randomUUID() }), 404, /No such member/],
      [
        'a stale membershipVersion',
        (f: Fixture) => ({ ...f.epochBody(), membershipVersion: f.epochBody().membershipVersion - 1 }),
        409,
        /members of this conversation changed/,
      ],
      [
        'shares missing a member',
        (f: Fixture) => ({ ...f.epochBody(), shares: f.epochBody().shares.slice(1) }),
        409,
        /members of this conversation changed/,
      ],
      ['an epoch id already taken', (f: Fixture) => ({ ...f.epochBody(), epochId: f.epochId }), 409, /This epoch already exists/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/epochs — ${name}`,
    method: 'POST',
    path: '/api/epochs',
    body,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/messages/send (member)
  ...bodyBasics('POST /api/messages/send', 'member'),
  ...(
    [
      [
        'index of the wrong type',
        async (f: Fixture) => ({ ...(await f.sendBody()), index: '0' }),
        400,
        /index: .*expected number, received string/,
      ],
      ['receiverId of the wrong type', async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: 5 }), 400, /receiverId: /],
      [
        'encryptedContent of the wrong type',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: { v: 1 } }),
        400,
        /encryptedContent: .*expected string, received object/,
      ],
      [
        'encryptedContent missing',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: undefined }),
        400,
        /encryptedContent: .*expected string, received undefined/,
      ],
      ['every field missing', {}, 400, /receiverId: .*epochId: .*index: .*encryptedContent: .*messageType: /],
      [
        'an extra field (the plaintext)',
        async (f: Fixture) => ({ ...(await f.sendBody()), plaintext: 'hello' }),
        400,
        /Unrecognized key.*"plaintext"/,
      ],
      ["messageType 'image'", async (f: Fixture) => ({ ...(await f.sendBody()), messageType: 'image' }), 400, /messageType: /],
      ['encryptedContent empty', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: '' }), 400, /Message is empty/],
      [
        'encryptedContent not JSON',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: 'hello in clear' }),
        400,
        /encryptedContent is not a message envelope/,
      ],
      [
        'encryptedContent a JSON array',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: '[]' }),
        400,
        /expected object, received array/,
      ],
      [
        'envelope with an extra field',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ extra: 'x' }) }),
        400,
        /Unrecognized key.*"extra"/,
      ],
      [
        'envelope of version 3',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ v: 3 }) }),
        400,
        /\bv: /,
      ],
      [
        'envelope without a signature',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ sig: undefined }) }),
        400,
        /sig: /,
      ],
      [
        'envelope iv of 8 bytes',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ iv: toBase64(new Uint8Array(8)) }) }),
        400,
        /iv: /,
      ],
      [
        'envelope ct not base64',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ ct: '!!!!' }) }),
        400,
        /ct: must be canonical base64/,
      ],
      // The crypto package parses envelopes "as strictly as the server does": canonical base64, a
      // 12-byte IV and a ciphertext at least one GCM tag long. Anything else can never be opened.
      [
        'envelope iv that decodes to 11 bytes',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ iv: 'AAAAAAAAAAAAAAA=' }) }),
        400,
        /iv/,
      ],
      [
        'envelope ct shorter than a GCM tag',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ ct: '' }) }),
        400,
        /ct/,
      ],
      [
        'envelope ct in non-canonical base64',
        async (f: Fixture) => ({
          ...(await f.sendBody()),
          encryptedContent: await f.envelopeWith({ ct: toBase64(new Uint8Array(40)).replace(/=+$/, '') }),
        }),
        400,
        /ct/,
      ],
      [
        'a real envelope whose ciphertext is that of a 501-character message',
        async (f: Fixture) => {
          // 500 × '€' is the largest legal message: 1,500 UTF-8 bytes + a 16-byte tag. One more
          // character is 3 more bytes; encryptMessage itself refuses to make it, so graft them on.
          const body = await f.sendBody('€'.repeat(limits.messageMaxChars));
          const env = messageEnvelopeSchema.parse(JSON.parse(String(body.encryptedContent)));
          const ct = Buffer.concat([Buffer.from(env.ct, 'base64'), Buffer.from('€')]);
          expect(ct.length).toBe(limits.messageMaxChars * 3 + 16 + 3);
          return { ...body, encryptedContent: JSON.stringify({ ...env, ct: ct.toString('base64') }) };
        },
        400,
        new RegExp(`^${errorTexts.messageTooLong}$`),
      ],
      [
        'encryptedContent over the envelope ceiling',
        async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: 'x'.repeat(limits.envelopeMaxBytes + 1) }),
        400,
        new RegExp(errorTexts.messageTooLong),
      ],
      ['index 100', async (f: Fixture) => ({ ...(await f.sendBody()), index: 100 }), 400, /index: Too big/],
      ['index -1', async (f: Fixture) => ({ ...(await f.sendBody()), index: -1 }), 400, /index: Too small/],
      ['index 1.5', async (f: Fixture) => ({ ...(await f.sendBody()), index: 1.5 }), 400, /index: .*expected int/],
      ["receiverId 'everyone'", async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: 'everyone' }), 400, /receiverId: /],
      [
        'receiverId is the caller',
        async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: f.alice.id }),
        400,
        /You cannot message yourself/,
      ],
      [
        'receiverId an unknown member',
        async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: randomUUID() }),
        404,
        /No such member/,
      ],
      ['epochId not a uuid', async (f: Fixture) => ({ ...(await f.sendBody()), epochId: 'epoch-1' }), 400, /epochId: must be an epoch id/],
      [
        'epochId unknown',
        async (f: Fixture) => ({ ...(await f.sendBody()), epochId: randomUUID() }),
        400,
        /Unknown epoch for this conversation/,
      ],
      [
        'the general epoch used for a direct message',
        async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: f.bob.id }),
        400,
        /Unknown epoch for this conversation/,
      ],
      ['a replayed (epochId, index)', async (f: Fixture) => ({ ...(await f.sendBody()), index: f.stored.index }), 409, /already used/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/messages/send — ${name}`,
    method: 'POST',
    path: '/api/messages/send',
    body,
    expectStatus,
    expectMessage,
  })),
];
