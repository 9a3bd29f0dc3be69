/**
 * Every HTTP call of the web app. This module (with socket.ts) is the only place that touches the
 * network; each call parses its answer with the protocol schema, so nothing from outside is cast.
 */
import {
  conversationMembersResponseSchema,
  createEpochRequestSchema,
  errorResponseSchema,
  historyResponseSchema,
  loginRequestSchema,
  okResponseSchema,
  registerRequestSchema,
  registerResponseSchema,
  sendMessageRequestSchema,
  sendMessageResponseSchema,
  sessionResponseSchema,
  sharesResponseSchema,
  userListResponseSchema,
  validateKeyRequestSchema,
  validateKeyResponseSchema,
  type ConversationMembersResponse,
  type CreateEpochRequest,
  type EpochShare,
  type HistoryResponse,
  type Message,
  type PublicUser,
  type RegisterRequest,
  type SelfUser,
  type SendMessageRequest,
  type SessionResponse,
  type ValidateKeyResponse,
} from '@enclave/protocol';
import { ApiError, NETWORK_FAILURE_STATUS } from './api-error';

export type Method = 'GET' | 'POST' | 'HEAD' | 'DELETE';

/** What this module needs of a protocol schema (zod's safeParse), without importing zod itself. */
export type Schema<T> = { safeParse(input: unknown): { success: true; data: T } | { success: false } };

/** `headers` carries the creator's `Authorization: SuperAdmin …` for the console's calls (creator-session.ts). */
export async function send(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json', ...headers } };
  if (body !== undefined) {
    // The JSON content type only when a body exists (docs/spec.md §7); the server also
    // uses it as its CSRF check on state-changing requests (docs/security.md §6).
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json', ...headers };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new ApiError(NETWORK_FAILURE_STATUS, `Network error: ${detail}`, 'network');
  }
  if (!response.ok) throw await toApiError(response);
  return response;
}

async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let code: string | null = null;
  let serverMessage: string | null = null;
  try {
    const parsed = errorResponseSchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      code = parsed.data.code;
      serverMessage = parsed.data.error;
    }
  } catch {
    // Not JSON (a proxy's error page, say): the generic message below still says what happened.
  }
  return new ApiError(response.status, `${response.status}: ${text || response.statusText}`, code, serverMessage);
}

export async function call<T>(
  method: Method,
  path: string,
  schema: Schema<T>,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  const response = await send(method, path, body, headers);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new ApiError(response.status, `${response.status}: response is not JSON`, 'bad_response');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(response.status, `${response.status}: unexpected response from ${path}`, 'bad_response');
  }
  return parsed.data;
}

export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** POST /api/keys/validate: 200 for valid and invalid keys alike; `reason` says why. */
export function validateInviteKey(inviteKey: string): Promise<ValidateKeyResponse> {
  return call('POST', '/api/keys/validate', validateKeyResponseSchema, validateKeyRequestSchema.parse({ inviteKey }));
}

/** POST /api/auth/register. Registration does not sign in. */
export async function register(request: RegisterRequest): Promise<SelfUser> {
  const body = registerRequestSchema.parse(request);
  return (await call('POST', '/api/auth/register', registerResponseSchema, body)).user;
}

/** POST /api/auth/login with the key derived from the access token; the session is a cookie. */
export function login(loginKey: string): Promise<SessionResponse> {
  return call('POST', '/api/auth/login', sessionResponseSchema, loginRequestSchema.parse({ loginKey }));
}

export async function logout(): Promise<void> {
  await call('POST', '/api/auth/logout', okResponseSchema, {});
}

/** GET /api/auth/me: the signed-in member, or ApiError 401. */
export function me(): Promise<SessionResponse> {
  return call('GET', '/api/auth/me', sessionResponseSchema);
}

export async function listUsers(): Promise<PublicUser[]> {
  return (await call('GET', '/api/users/all', userListResponseSchema)).users;
}

/** Who a new epoch of this conversation must be wrapped for. */
export function conversationMembers(receiverId: string): Promise<ConversationMembersResponse> {
  return call('GET', `/api/conversations/members${query({ receiverId })}`, conversationMembersResponseSchema);
}

export async function createEpoch(request: CreateEpochRequest): Promise<void> {
  await call('POST', '/api/epochs', okResponseSchema, createEpochRequestSchema.parse(request));
}

/** The caller's own shares of these epochs (at most 100 ids); epochs without one are absent. */
export async function fetchShares(epochIds: readonly string[]): Promise<EpochShare[]> {
  return (await call('GET', `/api/epochs/shares${query({ ids: epochIds.join(',') })}`, sharesResponseSchema)).shares;
}

export type HistoryParams = { receiverId: string; before?: number; after?: number; limit?: number };

/** GET /api/messages/recent: oldest first; `before` pages back, `after` catches up. */
export function history(params: HistoryParams): Promise<HistoryResponse> {
  const { receiverId, before, after, limit } = params;
  return call('GET', `/api/messages/recent${query({ receiverId, before, after, limit })}`, historyResponseSchema);
}

export async function sendMessage(request: SendMessageRequest): Promise<Message> {
  const body = sendMessageRequestSchema.parse(request);
  return (await call('POST', '/api/messages/send', sendMessageResponseSchema, body)).message;
}

/** HEAD /api/health: resolves when the server answers. */
export async function health(): Promise<void> {
  await send('HEAD', '/api/health');
}
