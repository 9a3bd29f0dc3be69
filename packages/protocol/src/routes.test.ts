import { describe, expect, it } from 'vitest';
import { routes, routeUrl } from './routes';

describe('routeUrl', () => {
  it('encodes path parameters, a trailing rest of the path segment by segment, and the query', () => {
    expect(routeUrl(routes.downloadAttachment, { params: { id: 'a b/c' } })).toBe('/api/attachments/a%20b%2Fc');
    expect(routeUrl(routes.decoyAnyGet, { params: { '*': 'wp-admin/a b:c' } })).toBe('/api/decoy/wp-admin/a%20b%3Ac');
    expect(routeUrl(routes.history, { query: { receiverId: 'all', limit: 5, before: undefined } })).toBe(
      '/api/messages/recent?receiverId=all&limit=5',
    );
  });

  it("takes a parameter's value that ends in * as it is, not for the rest of a path the route does not have", () => {
    expect(routeUrl(routes.downloadAttachment, { params: { id: 'x*' } })).toBe('/api/attachments/x*');
  });

  it('names a missing path parameter', () => {
    expect(() => routeUrl(routes.downloadAttachment)).toThrow('GET /api/attachments/:id needs the path parameter id');
  });
});
