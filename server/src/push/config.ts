/** The Web Push settings' parsing (config.ts holds the settings; docs/operations.md §2 describes them). */
import { z } from 'zod';

/**
 * PUSH_ENDPOINT_ALLOW: comma-separated https origins the server may send Web Push to besides the
 * known push services (server/src/push/endpoints.ts): a self-hosted push service, or a test's.
 */
export const pushEndpointAllowEnv = z
  .string()
  .optional()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined || !value.trim()) return undefined;
    const origins: string[] = [];
    for (const entry of value.split(',').map((o) => o.trim())) {
      let url: URL | null = null;
      try {
        url = new URL(entry);
      } catch {
        // refused below
      }
      if (!url || url.protocol !== 'https:' || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
        ctx.addIssue({
          code: 'custom',
          message: `PUSH_ENDPOINT_ALLOW must list https origins such as https://push.example.org (scheme, host and port only); got "${entry}"`,
        });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/** PUSH_SUBJECT: the VAPID contact (RFC 8292 `sub`), a mailto: address or an https URL. */
export const pushSubjectEnv = z
  .string()
  .regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, 'PUSH_SUBJECT must be a mailto: address or an https URL')
  .optional();
