/** The wrap bench's Web Worker (bench/wrap/chromium.ts bundles it): the client's own wrap service. */
import { serveWrapRequests, type WrapScope } from '@enclave/client/wrap-pool';

serveWrapRequests(self as unknown as WrapScope);
