import { describe, expect, it } from 'vitest';
import { classifyScript, scriptOrigin } from './script-injection';

const origin = 'https://chat.example.org';

describe('script elements', () => {
  it("accepts this origin's files, in any spelling", () => {
    expect(classifyScript('/assets/index-abc.js', origin)).toBe('ours');
    expect(classifyScript('https://chat.example.org/assets/x.js', origin)).toBe('ours');
    expect(classifyScript('assets/x.js', origin)).toBe('ours');
  });

  it('refuses inline, foreign and odd sources', () => {
    expect(classifyScript(null, origin)).toBe('inline');
    expect(classifyScript('  ', origin)).toBe('inline');
    expect(classifyScript('https://evil.example.net/x.js', origin)).toBe('foreign');
    expect(classifyScript('//cdn.example.com/x.js', origin)).toBe('foreign');
    expect(classifyScript('data:text/javascript,alert(1)', origin)).toBe('foreign');
    expect(classifyScript('http://chat.example.org/x.js', origin)).toBe('foreign');
  });

  it('names where a script came from without its path or query', () => {
    expect(scriptOrigin('https://evil.example.net/x.js?token=secret', origin)).toBe('https://evil.example.net');
    expect(scriptOrigin(null, origin)).toBe('inline script');
    expect(scriptOrigin('chrome-extension://abcdefghijklmnop/inject.js', origin)).toBe('chrome-extension://abcdefghijklmnop');
    expect(scriptOrigin('data:text/javascript,alert(1)', origin)).toBe('data:');
  });
});
