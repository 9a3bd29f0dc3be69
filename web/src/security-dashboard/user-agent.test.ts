import { describe, expect, it } from 'vitest';
import { describeUserAgent } from './user-agent';

describe('a session browser in a few words', () => {
  it('names common browsers and systems', () => {
    expect(
      describeUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36'),
    ).toBe('Headless Chrome 156 on Linux');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      ),
    ).toBe('Edge 131 on Windows');
    expect(describeUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe(
      'Firefox 128 on macOS',
    );
    expect(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari 17 on iOS');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      ),
    ).toBe('Chrome 126 on Android');
  });

  it('says nothing it cannot read', () => {
    expect(describeUserAgent(null)).toBeNull();
    expect(describeUserAgent('curl/8.5.0')).toBeNull();
    expect(describeUserAgent('Mozilla/5.0 (X11; Linux x86_64)')).toBe('Linux');
  });
});
