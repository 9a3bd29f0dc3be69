/**
 * A network of the test's own: `test` from here gives each test a fresh server (an empty network
 * whose rate limits count over a few seconds) and the people on it, all gone after the test. No
 * test sees another's members, keys or security events.
 */
import { generateKeysResponseSchema } from '@enclave/protocol';
import type { APIRequestContext, Browser, BrowserContext, BrowserContextOptions, Page } from '@playwright/test';
import { joinThroughUi, signIn, type Member } from './members';
import { test as base, expect } from './test';
import { E2E_MASTER_KEY, E2E_RATE_LIMIT_WINDOW_MS, EnclaveServer } from './server';

/** The console's viewer sits in another time zone than the server's UTC: the heatmap is in local hours. */
export const VIEWER_TZ = 'Europe/Berlin';

export class Network {
  private readonly contexts: BrowserContext[] = [];
  private closed = false;

  constructor(
    readonly server: EnclaveServer,
    /** The creator's API, by master key: for setting up, and for checking what the console shows. */
    readonly creatorApi: APIRequestContext,
    private readonly browser: Browser,
    /** Where browsers reach the network: the server itself, or the proxy in front of several (two-instances.ts). */
    readonly url: string = server.url,
    /** Headers every browser of this network sends (behind nginx: the client address it stands for). */
    private readonly browserHeaders: Record<string, string> = {},
  ) {}

  /** A browser of its own on this network, closed after the test. */
  async newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await this.browser.newContext({ baseURL: this.url, extraHTTPHeaders: this.browserHeaders, ...options });
    this.contexts.push(context);
    return context;
  }

  /** The creator's browser: a wide screen in the viewer's time zone. */
  async newCreatorPage(): Promise<Page> {
    const context = await this.newContext({ timezoneId: VIEWER_TZ, viewport: { width: 1440, height: 900 } });
    return context.newPage();
  }

  /** Invite keys, minted by the creator as the console's Generate Access Keys does. */
  async mintKeys(quantity: number): Promise<string[]> {
    const res = await this.creatorApi.post('/api/admin/generate-keys', { data: { quantity } });
    expect(res.status()).toBe(201);
    return generateKeysResponseSchema.parse(await res.json()).keys.map((k) => k.key);
  }

  /** A new member, joined through the login screen in a browser of their own (with a new key unless given one). */
  async join(username: string, inviteKey?: string): Promise<Member> {
    const key = inviteKey ?? (await this.mintKeys(1))[0]!;
    return joinThroughUi(await this.newContext(), key, username);
  }

  /** Signs in on the login screen (right tokens are never rate limited: docs/security.md §9). */
  async signIn(page: Page, token: string): Promise<void> {
    await signIn(page, token);
  }

  /** Closes every browser and the creator's API (a test may do it early, before reading the database). */
  async close(): Promise<void> {
    const contexts = this.contexts.splice(0);
    await Promise.all(contexts.map((c) => c.close()));
    if (this.closed) return;
    this.closed = true;
    await this.creatorApi.dispose();
  }
}

export const test = base.extend<{
  /** RATE_LIMIT_WINDOW_MS of the test's server; `test.use({ rateLimitWindowMs })` changes it. */
  rateLimitWindowMs: number;
  /** Further environment of the test's server; `test.use({ serverEnv: { TRUST_PROXY: '1' } })`. */
  serverEnv: Record<string, string>;
  /** The test's own server, started fresh. */
  server: EnclaveServer;
  /** The people on it: browsers, members, the creator's API; closed after the test. */
  network: Network;
}>({
  rateLimitWindowMs: [E2E_RATE_LIMIT_WINDOW_MS, { option: true }],
  serverEnv: [{}, { option: true }],
  server: async ({ rateLimitWindowMs, serverEnv }, use) => {
    const server = new EnclaveServer({ rateLimitWindowMs, env: serverEnv });
    await server.start();
    await use(server);
    await server.dispose();
  },
  network: async ({ server, browser, playwright }, use) => {
    const api = await playwright.request.newContext({
      baseURL: server.url,
      extraHTTPHeaders: { Authorization: `SuperAdmin ${E2E_MASTER_KEY}` },
    });
    const network = new Network(server, api, browser);
    await use(network);
    await network.close();
  },
});

export { expect };
