import { describe, expect, it } from 'vitest';
import { isRelaxedHost, parseRelaxedHosts } from './relaxed-hosts';

describe('relaxed hosts', () => {
  it('reads the comma-separated setting, empty by default', () => {
    expect(parseRelaxedHosts(undefined)).toEqual([]);
    expect(parseRelaxedHosts('')).toEqual([]);
    expect(parseRelaxedHosts(' Dev.Example.org , ,.localhost,')).toEqual(['dev.example.org', 'localhost']);
  });

  it('matches a host and its subdomains, nothing else', () => {
    const hosts = parseRelaxedHosts('example.org,localhost');
    expect(isRelaxedHost('example.org', hosts)).toBe(true);
    expect(isRelaxedHost('chat.example.org', hosts)).toBe(true);
    expect(isRelaxedHost('a.b.EXAMPLE.org.', hosts)).toBe(true);
    expect(isRelaxedHost('localhost', hosts)).toBe(true);
    expect(isRelaxedHost('badexample.org', hosts)).toBe(false);
    expect(isRelaxedHost('example.org.evil.net', hosts)).toBe(false);
    expect(isRelaxedHost('127.0.0.1', hosts)).toBe(false);
    expect(isRelaxedHost('example.org', [])).toBe(false);
  });
});
