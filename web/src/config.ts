/** Where keys are bought: a ticket in the community server (the purchase happens outside the app). */
export const COMMUNITY_INVITE_URL = 'https://discord.gg/enclave';

/** Routes the login screen opens in new tabs. */
export const externalRoutes = {
  validate: '/validate',
  admin: '/admin',
  creator: '/super-admin',
} as const;
