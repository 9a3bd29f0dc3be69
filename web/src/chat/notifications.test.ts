import { describe, expect, it } from 'vitest';
import {
  GENERIC_TITLE,
  MAX_BODY_CHARS,
  notificationFor,
  parseMuted,
  parseNotificationSetting,
  truncate,
  type IncomingMessage,
} from './notifications';

const incoming: IncomingMessage = { own: false, inView: false, senderName: 'bob', result: { status: 'ok', text: 'hello' } };
const generic = { title: GENERIC_TITLE, body: '' };

describe('notificationFor', () => {
  it('shows nothing for a conversation in view', () => {
    expect(notificationFor('details', { ...incoming, inView: true })).toBeNull();
  });

  it('shows nothing while notifications are off', () => {
    expect(notificationFor('off', incoming)).toBeNull();
  });

  it("shows nothing for the member's own message", () => {
    expect(notificationFor('details', { ...incoming, own: true })).toBeNull();
  });

  it('says only "New message" when details are not chosen', () => {
    expect(notificationFor('generic', incoming)).toEqual(generic);
  });

  it('shows the sender and text when details are chosen', () => {
    expect(notificationFor('details', incoming)).toEqual({ title: 'bob', body: 'hello' });
  });

  it('names an attachment by its file, with its caption', () => {
    const attachment = {
      id: '00000000-0000-4000-8000-000000000001',
      key: 'k',
      iv: 'i',
      sha256: 'h',
      name: 'beach.png',
      type: 'image/png',
      size: 1,
    };
    expect(notificationFor('details', { ...incoming, result: { status: 'ok', text: '', attachment } })).toEqual({
      title: 'bob',
      body: '📎 beach.png',
    });
    expect(notificationFor('details', { ...incoming, result: { status: 'ok', text: 'look', attachment } })).toEqual({
      title: 'bob',
      body: '📎 beach.png — look',
    });
  });

  it.each([
    ['not decrypted here', undefined],
    ['unreadable', { status: 'unreadable', retryable: false } as const],
    ['a bad signature', { status: 'bad_signature' } as const],
    ['a changed key', { status: 'unverified' } as const],
    ['a replay', { status: 'replayed' } as const],
  ])('says only "New message" for a message %s, details or not', (_, result) => {
    expect(notificationFor('details', { ...incoming, result })).toEqual(generic);
  });

  it('says only "New message" for a sender not in the member list', () => {
    expect(notificationFor('details', { ...incoming, senderName: undefined })).toEqual(generic);
  });

  it('shows nothing for a muted conversation, unless the message mentions the member', () => {
    expect(notificationFor('details', { ...incoming, muted: true })).toBeNull();
    expect(notificationFor('generic', { ...incoming, muted: true, mentionsMe: false })).toBeNull();
    expect(notificationFor('details', { ...incoming, muted: true, mentionsMe: true })).toEqual({ title: 'bob', body: 'hello' });
    expect(notificationFor('generic', { ...incoming, muted: true, mentionsMe: true })).toEqual(generic);
  });

  it('never notifies a mention while notifications are off, in view, or of the member’s own message', () => {
    const mention = { ...incoming, muted: true, mentionsMe: true };
    expect(notificationFor('off', mention)).toBeNull();
    expect(notificationFor('details', { ...mention, inView: true })).toBeNull();
    expect(notificationFor('details', { ...mention, own: true })).toBeNull();
  });

  it('cuts a long text', () => {
    const body = notificationFor('details', { ...incoming, result: { status: 'ok', text: 'x'.repeat(500) } })?.body;
    expect(body).toBe(`${'x'.repeat(MAX_BODY_CHARS - 1)}…`);
  });
});

describe('truncate', () => {
  it('leaves a short text as it is', () => {
    expect(truncate('hi', 3)).toBe('hi');
    expect(truncate('abc', 3)).toBe('abc');
  });

  it('never cuts an emoji in half', () => {
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀…');
  });
});

describe('parseMuted', () => {
  it('reads a stored list of conversation ids and anything else as none', () => {
    expect([...parseMuted('["general","dm:a:b"]')]).toEqual(['general', 'dm:a:b']);
    expect([...parseMuted('["general",3]')]).toEqual(['general']);
    expect(parseMuted(null).size).toBe(0);
    expect(parseMuted('{').size).toBe(0);
    expect(parseMuted('{"general":true}').size).toBe(0);
  });
});

describe('parseNotificationSetting', () => {
  it('reads what was stored and anything else as off', () => {
    expect(parseNotificationSetting('generic')).toBe('generic');
    expect(parseNotificationSetting('details')).toBe('details');
    expect(parseNotificationSetting(null)).toBe('off');
    expect(parseNotificationSetting('on')).toBe('off');
  });
});
