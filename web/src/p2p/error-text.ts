import { isApiError } from '../net/api-error';

/** The server's own words for a refusal (a full node's 409, a ban, emergency mode), else the error's. */
export function errorText(error: unknown): string {
  if (isApiError(error)) return error.serverMessage ?? error.message;
  return error instanceof Error ? error.message : String(error);
}
