/**
 * Hosts where tamper protection is relaxed (docs/spec.md §4: "disabled on the product's own hosting
 * host names and their subdomains"), configured at build time with VITE_TAMPER_RELAXED_HOSTS, never
 * written into the code. On such a host the detectors still record what they find, but take no
 * countermeasure (no decoys, no wipe, no report) and never run the `debugger` probe, so developers
 * can work with their tools open.
 */

/** The comma-separated setting as host names: trimmed, lower case, empties and a leading dot dropped. */
export function parseRelaxedHosts(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase().replace(/^\.+/, '').replace(/\.+$/, ''))
    .filter((h) => h.length > 0);
}

/** True when `hostname` is one of `hosts` or a subdomain of one (`a.example.org` matches `example.org`). */
export function isRelaxedHost(hostname: string, hosts: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  return hosts.some((h) => host === h || host.endsWith(`.${h}`));
}
