/**
 * Every HTTP call of the web app. This module (with socket.ts) is the only place that touches the
 * network; each call parses its answer with the protocol schema, so nothing from outside is cast.
 */
import {
  errorResponseSchema,
  routeUrl,
  routes,
  type DisappearingTimer,
  type PublicUser,
  type RegisterRequest,
  type ShareKey,
  type RouteDefinition,
  type RouteInput,
  type RouteResponse,
  type SelfUser,
  type SessionResponse,
  type ValidateKeyResponse,
  type UploadAttachmentResponse,
  type TimelineEvent,
} from '@enclave/protocol';
import { retryAfterMs } from '@enclave/client';
import { ApiError, NETWORK_FAILURE_STATUS } from './api-error';

/**
 * Sends a call of the route table and returns the raw answer (for answers that are not JSON);
 * the body is checked by the route's own schema first. `headers` carries the creator's
 * `Authorization: SuperAdmin …` for the console's calls (creator-session.ts); `signal` aborts the
 * call (the connection monitor's timeout), which then fails as a network error.
 */
export async function send<R extends RouteDefinition>(
  route: R,
  input: RouteInput<R>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const init: RequestInit = {
    method: route.method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...headers },
    signal,
  };
  // A route that accepts any body (the decoys) may be called with none.
  const body: unknown = route.body ? route.body.parse(input.body) : undefined;
  if (body !== undefined) {
    // The JSON content type only when a body exists (docs/spec.md §7); the server also uses it as
    // its CSRF check on state-changing requests (docs/security.md §6).
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json', ...headers };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(routeUrl(route, input), init);
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
  return new ApiError(
    response.status,
    `${response.status}: ${text || response.statusText}`,
    code,
    serverMessage,
    retryAfterMs(response.headers.get('retry-after')),
  );
}

/** Calls a route of the route table and parses its answer with the route's response schema. */
export async function call<R extends RouteDefinition>(
  route: R,
  input: RouteInput<R>,
  headers?: Record<string, string>,
): Promise<RouteResponse<R>> {
  const response = await send(route, input, headers);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new ApiError(response.status, `${response.status}: response is not JSON`, 'bad_response');
  }
  const parsed = route.response.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(response.status, `${response.status}: unexpected response from ${route.path}`, 'bad_response');
  }
  // The data was parsed by this very route's schema: its type is the route's response type.
  return parsed.data as RouteResponse<R>;
}

/** 200 for valid and invalid keys alike; `reason` says why. */
export function validateInviteKey(inviteKey: string): Promise<ValidateKeyResponse> {
  return call(routes.validateKey, { body: { inviteKey } });
}

/** Registration does not sign in. */
export async function register(body: RegisterRequest): Promise<SelfUser> {
  return (await call(routes.register, { body })).user;
}

/** Signs in with the key derived from the access token; the session is a cookie. */
/** `browserId`: this browser's id, for the server's count of its failed sign-ins. */
export function login(loginKey: string, browserId: string | undefined): Promise<SessionResponse> {
  return call(routes.login, { body: { loginKey, ...(browserId ? { browserId } : {}) } });
}

/** Publishes the member's share key (the same key again changes nothing). */
export async function publishShareKey(shareKey: ShareKey): Promise<void> {
  await call(routes.publishShareKey, { body: shareKey });
}

export async function logout(): Promise<void> {
  await call(routes.logout, {});
}

/** The signed-in member, or ApiError 401. */
export function me(): Promise<SessionResponse> {
  return call(routes.me, {});
}

export async function listUsers(): Promise<PublicUser[]> {
  return (await call(routes.users, {})).users;
}

/** The members with these ids (at most `limits.usersPerLookup`), as the member list gives them. */
export async function lookupUsers(ids: string[]): Promise<PublicUser[]> {
  return (await call(routes.lookupUsers, { body: { ids } })).users;
}

/**
 * Uploads an attachment's ciphertext (never the file itself) for the conversation with
 * `receiverId`; the server's refusals (size, quota, rate) arrive as ApiErrors with its own text.
 */
export async function uploadAttachment(receiverId: string, ciphertext: Uint8Array<ArrayBuffer>): Promise<UploadAttachmentResponse> {
  const route = routes.uploadAttachment;
  let response: Response;
  try {
    response = await fetch(routeUrl(route, { query: { receiverId } }), {
      method: route.method,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', 'Content-Type': route.rawBody.contentType },
      body: ciphertext,
    });
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new ApiError(NETWORK_FAILURE_STATUS, `Network error: ${detail}`, 'network');
  }
  if (!response.ok) throw await toApiError(response);
  const parsed = route.response.safeParse(await response.json().catch(() => null));
  if (!parsed.success) throw new ApiError(response.status, `${response.status}: unexpected response from ${route.path}`, 'bad_response');
  return parsed.data;
}

/** An attachment's ciphertext, to check and decrypt in this page. */
export async function downloadAttachment(id: string): Promise<Uint8Array<ArrayBuffer>> {
  const response = await send(routes.downloadAttachment, { params: { id } });
  return new Uint8Array(await response.arrayBuffer());
}

/** Erases one of the member's own messages for everyone. */
export async function deleteMessage(id: number): Promise<void> {
  await call(routes.deleteMessage, { params: { id } });
}

/** Sets a conversation's disappearing-message timer; the announcement comes back as a frame too. */
export async function setDisappearing(receiverId: string, seconds: DisappearingTimer): Promise<TimelineEvent> {
  return (await call(routes.setDisappearing, { body: { receiverId, seconds } })).event;
}

/**
 * Resolves when the server answers 2xx; an ApiError otherwise (503 while it is degraded: up, but
 * refusing some work), a network one when `signal` aborts first.
 */
export async function health(signal?: AbortSignal): Promise<void> {
  await send(routes.health, {}, {}, signal);
}
