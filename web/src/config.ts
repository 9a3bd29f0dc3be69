/**
 * Where keys are bought: a ticket in the community server (the purchase happens outside the app).
 * Set VITE_COMMUNITY_INVITE_URL when building to point at your own community.
 */
export const COMMUNITY_INVITE_URL: string = import.meta.env.VITE_COMMUNITY_INVITE_URL || 'https://discord.gg/enclave';

/** Routes the login screen opens in new tabs. */
export const externalRoutes = {
  validate: '/validate',
  admin: '/admin',
  creator: '/super-admin',
} as const;
