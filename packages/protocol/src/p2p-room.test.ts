import { describe, expect, it } from 'vitest';
import { parseP2pRoomFrame } from './p2p-room';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const EPOCH = '00000000-0000-4000-8000-0000000000e1';

describe('parseP2pRoomFrame', () => {
  it('takes a valid frame and refuses anything else', () => {
    const roster = { type: 'roster', version: 0, members: [ALICE] };
    expect(parseP2pRoomFrame(JSON.stringify(roster))).toEqual(roster);
    expect(parseP2pRoomFrame('not json')).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ ...roster, extra: 1 }))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ type: 'chat', text: 'hi' }))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ ...roster, members: ['not-an-id'] }))).toBeNull();
    expect(parseP2pRoomFrame(new ArrayBuffer(4))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ ...roster, pad: 'x'.repeat(70_000) }))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ type: 'hello' }))).toEqual({ type: 'hello' });
    expect(parseP2pRoomFrame(JSON.stringify({ type: 'hello', members: [ALICE] }))).toBeNull();
  });

  it('takes epochs and messages only with ids, base64 shares and bounded sizes', () => {
    const share = { recipientId: ALICE, wrappedKey: 'AAAA', signature: 'AAAA' };
    const epoch = { type: 'epoch', senderId: ALICE, epochId: EPOCH, version: 1, shares: [share] };
    expect(parseP2pRoomFrame(JSON.stringify(epoch))).toEqual(epoch);
    expect(parseP2pRoomFrame(JSON.stringify({ ...epoch, shares: [] }))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ ...epoch, shares: [{ ...share, wrappedKey: 'not base64!' }] }))).toBeNull();
    const message = { type: 'message', senderId: ALICE, epochId: EPOCH, index: 0, encryptedContent: '{}' };
    expect(parseP2pRoomFrame(JSON.stringify(message))).toEqual(message);
    expect(parseP2pRoomFrame(JSON.stringify({ ...message, index: -1 }))).toBeNull();
    expect(parseP2pRoomFrame(JSON.stringify({ ...message, encryptedContent: 'x'.repeat(5000) }))).toBeNull();
  });
});
