/**
 * A Web Worker that wraps the channel's key for a slice of the members. It imports the wrap pool
 * alone, not the client's index: that would build the protocol's schemas here too, without the
 * CSP-safe setting main.tsx applies first.
 */
import { serveWrapRequests, type WrapScope } from '@enclave/client/wrap-pool';

serveWrapRequests(self as unknown as WrapScope);
