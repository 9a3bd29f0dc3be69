/**
 * Which push endpoints the server will POST to (docs/security.md, "Web Push"). The endpoint is
 * the browser's word, so it is a request the server makes for a caller: only the browser
 * vendors' push services, and the origins an operator adds (PUSH_ENDPOINT_ALLOW), are accepted,
 * never an address inside the server's network.
 */

/** Push services of the browsers, by exact host. */
const KNOWN_HOSTS = new Set(['fcm.googleapis.com', 'updates.push.services.mozilla.com', 'web.push.apple.com']);
/** Push services reached under many hosts (Apple's per-region ones, Windows'). */
const KNOWN_SUFFIXES = ['.push.apple.com', '.notify.windows.com'];

/** Why the server will not send to `endpoint`, or null when it will. Checked at subscribe and again before each send. */
export function pushEndpointRefusal(endpoint: string, allowedOrigins: readonly string[] = []): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an https URL';
  }
  if (url.protocol !== 'https:' || url.username || url.password) return 'endpoint must be an https URL';
  if (allowedOrigins.includes(url.origin)) return null;
  // The known services on their default port only: a port is no part of their endpoints.
  const host = url.hostname.toLowerCase();
  const known = KNOWN_HOSTS.has(host) || KNOWN_SUFFIXES.some((suffix) => host.endsWith(suffix) && host.length > suffix.length);
  if (known && url.port === '') return null;
  return 'endpoint is not a known push service (the operator may allow more with PUSH_ENDPOINT_ALLOW)';
}
