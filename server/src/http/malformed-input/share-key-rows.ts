/** The table's rows for a member's share key (server/src/auth/routes.ts): signed out, malformed, and keys the server refuses. */
import { generateKeyPairSync } from 'node:crypto';
import { bodyBasics, bodyRow, signedOut, type Row } from './table';

const ROUTE = 'POST /api/auth/share-key';
const b64 = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill).toString('base64');
/** A real X25519 key the member never signed. */
const unsigned = generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

export const shareKeyRows: Row[] = [
  ...signedOut('POST', '/api/auth/share-key', { sharePublicKey: unsigned, signature: b64(64) }),
  ...bodyBasics(ROUTE, 'member'),
  bodyRow(ROUTE, 'a key of 31 bytes', { sharePublicKey: b64(31), signature: b64(64) }, 400, /sharePublicKey/),
  bodyRow(ROUTE, 'a key in base64url', { sharePublicKey: `-_${unsigned.slice(2)}`, signature: b64(64) }, 400, /sharePublicKey/),
  bodyRow(ROUTE, 'no signature', { sharePublicKey: unsigned }, 400, /signature/),
  bodyRow(ROUTE, 'a signature of 63 bytes', { sharePublicKey: unsigned, signature: b64(63) }, 400, /signature/),
  bodyRow(ROUTE, 'an extra field', { sharePublicKey: unsigned, signature: b64(64), extra: 1 }, 400, /Unrecognized key.*"extra"/),
  bodyRow(
    ROUTE,
    'a low-order point',
    { sharePublicKey: b64(32, 0), signature: b64(64) },
    400,
    /^sharePublicKey: must be an X25519 public key of full order$/,
  ),
  bodyRow(ROUTE, 'a key the member did not sign', { sharePublicKey: unsigned, signature: b64(64) }, 400, /^signature: /),
];
