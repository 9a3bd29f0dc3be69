/**
 * HTTP as the test member speaks it: the route table's calls with a cookie jar, every payload kept
 * in `wire` so that tests can look for secrets in it, answers parsed by the route's schemas.
 */
import { retryAfterMs } from '@enclave/client';
import {
  errorResponseSchema,
  routeUrl,
  type ErrorResponse,
  type RouteDefinition,
  type RouteInput,
  type RouteResponse,
} from '@enclave/protocol';

export type Reply = { status: number; body: unknown; headers: Headers };

/**
 * A call's answer, parsed: `body` by the route's response schema when it succeeded, `error` by
 * the error schema when it failed. An answer that fits neither fails the test.
 */
export type Outcome<R extends RouteDefinition> = {
  status: number;
  headers: Headers;
  body: RouteResponse<R> | null;
  error: ErrorResponse | null;
};

/** Parses a raw reply as the route's answer. */
export function outcomeOf<R extends RouteDefinition>(route: R, res: Reply): Outcome<R> {
  const outcome: Outcome<R> = { status: res.status, headers: res.headers, body: null, error: null };
  if (res.status === route.status) {
    // Parsed by this very route's schema: its type is the route's response type. An empty answer
    // (HEAD) reads as null here and as undefined in the schema.
    outcome.body = route.response.parse(res.body ?? undefined) as RouteResponse<R>;
  } else if (res.status >= 400) {
    outcome.error = errorResponseSchema.parse(res.body);
  } else {
    throw new Error(`${route.method} ${route.path} answered ${res.status}, expected ${route.status}`);
  }
  return outcome;
}

/**
 * A call the server refused, as the client core reads refusals (`status`, `code`), with the
 * parsed answer for the test.
 */
export class ReplyError<R extends RouteDefinition = RouteDefinition> extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly retryAfterMs: number | null;

  constructor(
    readonly route: R,
    readonly outcome: Outcome<R>,
  ) {
    super(`${route.method} ${route.path} failed: ${outcome.status} ${outcome.error?.error ?? ''}`);
    this.status = outcome.status;
    this.code = outcome.error?.code ?? null;
    this.retryAfterMs = retryAfterMs(outcome.headers.get('retry-after'));
  }
}

/**
 * No answer at all (refused, reset, cut mid-request): status 0, as the web app reports it, so that
 * the client core reads it as a failure after which the server may or may not have acted.
 */
export class NetworkFailure extends Error {
  readonly status = 0;
  readonly code = null;

  constructor(
    readonly method: string,
    readonly path: string,
    cause: unknown,
  ) {
    super(
      `${method} ${path}: no answer (${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)})`,
      { cause },
    );
  }
}

type Caller = { request: HttpCaller['request'] };

/** Calls through the route table, with this caller's cookie; the answer parsed (see Outcome). */
async function attempt<R extends RouteDefinition>(
  caller: Caller,
  route: R,
  input: RouteInput<R>,
  headers: Record<string, string> = {},
): Promise<Outcome<R>> {
  const body = route.body ? input.body : undefined;
  return outcomeOf(route, await caller.request(route.method, routeUrl(route, input), body, headers));
}

/** Like `attempt`, for calls that must succeed: the parsed body, or a {@link ReplyError}. */
async function call<R extends RouteDefinition>(
  caller: Caller,
  route: R,
  input: RouteInput<R>,
  headers: Record<string, string> = {},
): Promise<RouteResponse<R>> {
  const outcome = await attempt(caller, route, input, headers);
  if (outcome.status !== route.status) throw new ReplyError(route, outcome);
  return outcome.body as RouteResponse<R>;
}

/** A caller of the server's routes with a cookie jar: an anonymous visitor, or the base of a member. */
export class HttpCaller {
  /** The session cookie the server set last, sent with every request. */
  protected cookie = '';

  constructor(
    readonly baseUrl: string,
    readonly wire: string[] = [],
    /** Sent with every request and socket upgrade (an X-Forwarded-For behind a trusted proxy). */
    protected readonly headers: Record<string, string> = {},
  ) {}

  /** A call through the route table, answer parsed (see Outcome). */
  attempt<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<Outcome<R>> {
    return attempt(this, route, input, headers);
  }

  /** A call that must succeed: its parsed answer. */
  call<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<RouteResponse<R>> {
    return call(this, route, input, headers);
  }

  async request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...this.headers, ...extraHeaders };
    if (this.cookie) headers.cookie = this.cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      this.wire.push(`${method} ${path} ${payload}`);
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.baseUrl + path, { method, headers, body: payload });
      text = await res.text();
    } catch (cause) {
      throw new NetworkFailure(method, path, cause);
    }
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
    this.wire.push(`${res.status} ${path} ${text}`);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }
}
