import { describe, expect, it } from 'vitest';
import { cacheName, precacheList, routeOf, staleCaches } from './shell';

const origin = 'https://enclave.example';
const precached = new Set(['/index.html', '/assets/index-abc.js', '/assets/index-abc.css']);
const get = (path: string, mode = 'cors', method = 'GET') => ({ url: origin + path, mode, method });

describe('precacheList', () => {
  it('keeps the page, hashed code and styles, manifest and icons; drops compressed copies, maps and the worker', () => {
    const files = [
      'index.html',
      'index.html.br',
      'assets/index-abc.js',
      'assets/index-abc.js.gz',
      'assets/index-abc.js.map',
      'assets\\vendor-def.css',
      'manifest.webmanifest',
      'favicon.svg',
      'icons/icon-192.png',
      'sw.js',
      'robots.txt',
    ];
    expect(precacheList(files)).toEqual([
      '/assets/index-abc.js',
      '/assets/vendor-def.css',
      '/favicon.svg',
      '/icons/icon-192.png',
      '/index.html',
      '/manifest.webmanifest',
    ]);
  });
});

describe('staleCaches', () => {
  it("removes the worker's older shells only", () => {
    expect(staleCaches([cacheName('old'), cacheName('new'), 'someone-else'], cacheName('new'))).toEqual([cacheName('old')]);
  });
});

describe('routeOf', () => {
  it('answers app pages with the shell, whatever their path', () => {
    expect(routeOf(get('/', 'navigate'), origin, precached)).toBe('shell');
    expect(routeOf(get('/chat?c=1', 'navigate'), origin, precached)).toBe('shell');
  });

  it('serves precached files from the cache, and nothing else', () => {
    expect(routeOf(get('/assets/index-abc.js'), origin, precached)).toBe('precached');
    expect(routeOf(get('/assets/other.js'), origin, precached)).toBe('network');
    expect(routeOf(get('/assets/index-abc.js?x=1'), origin, precached)).toBe('network');
  });

  it('never touches the API, the socket, other origins or writes', () => {
    for (const path of ['/api/auth/me', '/api', '/ws', '/metrics', '/robots.txt', '/sw.js']) {
      expect(routeOf(get(path, 'navigate'), origin, precached)).toBe('network');
      expect(routeOf(get(path), origin, precached)).toBe('network');
    }
    expect(routeOf({ url: 'https://elsewhere.example/', mode: 'navigate', method: 'GET' }, origin, precached)).toBe('network');
    expect(routeOf(get('/index.html', 'cors', 'POST'), origin, precached)).toBe('network');
  });
});
