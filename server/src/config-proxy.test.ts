/** TRUST_PROXY and PUBLIC_ORIGIN as the environment spells them (docs/operations.md §2, §5). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    ['1', { hops: 1 }],
    ['2', { hops: 2 }],
    ['127.0.0.1', { addresses: ['127.0.0.1'] }],
    ['10.0.0.0/8, 192.168.1.7 ,::1', { addresses: ['10.0.0.0/8', '192.168.1.7', '::1'] }],
    ['loopback,uniquelocal', { addresses: ['loopback', 'uniquelocal'] }],
  ])('%s trusts %j', (value, trustProxy) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(trustProxy);
  });

  it('refuses true, saying what to set instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY=true .*every X-Forwarded-For entry.*set TRUST_PROXY to the number of proxies .* or to their addresses/i,
    );
  });

  it.each(['yes', '-1', '1.5', '10.0.0.0/33', '300.1.1.1', 'proxy.example.org', '127.0.0.1,,10.0.0.1'])('refuses %s', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
  });
});

describe('PUBLIC_ORIGIN', () => {
  it('is absent unless set', () => {
    expect(loadConfig({}).publicOrigins).toBeUndefined();
  });

  it.each([
    ['https://chat.example.org', ['https://chat.example.org']],
    ['https://Chat.Example.org/', ['https://chat.example.org']],
    ['https://chat.example.org:8443, http://localhost:5173', ['https://chat.example.org:8443', 'http://localhost:5173']],
    ['https://chat.example.org:443', ['https://chat.example.org']],
  ])('%s allows %j', (value, origins) => {
    expect(loadConfig({ PUBLIC_ORIGIN: value }).publicOrigins).toEqual(origins);
  });

  it.each([
    'chat.example.org',
    'https://chat.example.org/app',
    'ftp://chat.example.org',
    'https://chat.example.org?x=1',
    'https://user@chat.example.org',
  ])('refuses %s: an origin is a scheme, a host and a port', (value) => {
    expect(() => loadConfig({ PUBLIC_ORIGIN: value })).toThrow(/PUBLIC_ORIGIN/);
  });
});
