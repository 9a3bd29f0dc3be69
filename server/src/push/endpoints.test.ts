/** Which push endpoints the server will send to, and how PUSH_ENDPOINT_ALLOW is read. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { pushEndpointRefusal } from './endpoints';

describe('push endpoint allowlist', () => {
  it('accepts the browser vendors’ push services on their default port', () => {
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/abc',
      'https://web.push.apple.com/QGx',
      'https://api.push.apple.com/3/device/x',
      'https://wns2-db5p.notify.windows.com/w/?token=x',
    ])
      expect(pushEndpointRefusal(endpoint), endpoint).toBeNull();
  });

  it('refuses anything else unless its origin is allowed', () => {
    for (const endpoint of [
      'https://127.0.0.1/push',
      'https://10.0.0.5/push',
      'https://metadata.google.internal/x',
      'https://fcm.googleapis.com.evil.example/x',
      'https://push.apple.com/x',
      'https://evilnotify.windows.com/x',
      'https://fcm.googleapis.com:8443/x',
      'http://fcm.googleapis.com/x',
      'https://user:pw@fcm.googleapis.com/x',
      'not a url',
    ])
      expect(pushEndpointRefusal(endpoint), endpoint).not.toBeNull();
    expect(pushEndpointRefusal('https://push.example.org:8443/a', ['https://push.example.org:8443'])).toBeNull();
    expect(pushEndpointRefusal('https://push.example.org/a', ['https://push.example.org:8443'])).not.toBeNull();
  });

  it('reads PUSH_ENDPOINT_ALLOW as https origins, and refuses anything else at start', () => {
    expect(loadConfig({ PUSH_ENDPOINT_ALLOW: 'https://push.example.org, https://Push2.example.org:8443' }).pushEndpointAllow).toEqual([
      'https://push.example.org',
      'https://push2.example.org:8443',
    ]);
    expect(loadConfig({}).pushEndpointAllow).toBeUndefined();
    expect(() => loadConfig({ PUSH_ENDPOINT_ALLOW: 'http://push.example.org' })).toThrow(/PUSH_ENDPOINT_ALLOW must list https origins/);
    expect(() => loadConfig({ PUSH_ENDPOINT_ALLOW: 'https://push.example.org/path' })).toThrow(/PUSH_ENDPOINT_ALLOW/);
    expect(() => loadConfig({ PUSH_SUBJECT: 'someone' })).toThrow(/PUSH_SUBJECT must be a mailto: address or an https URL/);
    expect(loadConfig({ PUSH_SUBJECT: 'mailto:ops@example.org' }).pushSubject).toBe('mailto:ops@example.org');
  });
});
