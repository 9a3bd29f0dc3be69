import { parseRelaxedHosts } from './security/relaxed-hosts';

/**
 * Where keys are bought: a ticket in the community server (the purchase happens outside the app).
 * Set VITE_COMMUNITY_INVITE_URL when building to point at your own community.
 */
export const COMMUNITY_INVITE_URL: string = import.meta.env.VITE_COMMUNITY_INVITE_URL || 'https://discord.gg/enclave';

/**
 * Host names (and their subdomains) where tamper protection is relaxed: detections are recorded,
 * no countermeasure is taken and the debugger probe does not run. Set VITE_TAMPER_RELAXED_HOSTS
 * (comma-separated) when building, for development or staging hosts; empty by default.
 */
export const TAMPER_RELAXED_HOSTS: readonly string[] = parseRelaxedHosts(import.meta.env.VITE_TAMPER_RELAXED_HOSTS);

/** Routes the login screen opens in new tabs. */
export const externalRoutes = {
  validate: '/validate',
  admin: '/admin',
  creator: '/super-admin',
} as const;
