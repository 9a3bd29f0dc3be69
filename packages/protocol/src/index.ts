/**
 * The wire: every HTTP route, body, answer and WebSocket frame of Enclave, defined once and parsed
 * on both sides. Nothing here imports the server or the web app.
 */
export { GENERAL_CONVERSATION, limits } from './limits';
export * from './primitives';
export * from './users';
export * from './errors';
export * from './auth';
export * from './messages';
export * from './groups';
export * from './channel-keys';
export * from './read-receipts';
export * from './attachments';
export * from './frames';
export * from './close-codes';
export * from './admin';
export * from './creator';
export * from './security';
export * from './p2p';
export * from './p2p-room';
export * from './push';
export * from './routes';
