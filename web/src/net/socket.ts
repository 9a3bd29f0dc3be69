/**
 * The real-time connection. It authenticates with the session cookie sent at upgrade (no secret
 * crosses the socket), keeps itself alive with pings, and reconnects with back-off (./backoff.ts:
 * within a second while the last connection was healthy), at once when the server closes with 1001
 * "going away" because it is shutting down, and at once when the browser is back online or the
 * page becomes visible again. Every frame goes to its
 * listener (the member's one FrameDispatcher); an `authenticated` frame — a (re)authentication, or
 * the server saying frames may have been lost while the socket stayed open — makes the member
 * client catch up (packages/client/src/member-client.ts).
 */
import { closeCodes, serverFrameSchema, SOCKET_PATH, type ClientFrame, type ServerFrame } from '@enclave/protocol';
import { randomUnit, reconnectDelay } from './backoff';

export type SocketState = 'idle' | 'connecting' | 'connected' | 'authenticating' | 'authenticated' | 'auth_failed' | 'disconnected';

export const PING_INTERVAL_MS = 25_000;
/** No frame at all this long after a ping means the connection is dead even if not closed yet. */
const PONG_TIMEOUT_MS = 10_000;

/** `WebSocket.OPEN`, the same in every implementation (and Node 20, where tests run, has no global WebSocket). */
const OPEN = 1;

type Listener<T> = (value: T) => void;

function socketUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}${SOCKET_PATH}`;
}

/** What the socket is built on; the browser's own by default, fakes in tests (with fake timers). */
export type RealtimeSocketOptions = {
  createWebSocket?: (url: string) => WebSocket;
  url?: () => string;
  /** Where the browser's `online` and `offline` events come from. */
  network?: Pick<Window, 'addEventListener' | 'removeEventListener'>;
  /** A number in [0, 1) that spreads the back-off. */
  random?: () => number;
  /** Where `visibilitychange` comes from, and the page's visibility (the document by default). */
  page?: Pick<Document, 'addEventListener' | 'removeEventListener' | 'visibilityState'>;
};

export class RealtimeSocket {
  private current: SocketState = 'idle';
  private ws: WebSocket | null = null;
  private attempt = 0;
  /**
   * The last connection authenticated and the server refused nothing since: failures are then a
   * restart or the network, and the fast back-off applies (./backoff.ts).
   */
  private healthy = true;
  private stopped = true;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private pongTimer: ReturnType<typeof setTimeout> | null = null;
  /** Pings sent on this connection (the heartbeat's and anyone else's) whose pong has not come. */
  private unanswered = 0;
  private readonly stateListeners = new Set<Listener<SocketState>>();
  private readonly frameListeners = new Set<Listener<ServerFrame>>();
  private readonly createWebSocket: (url: string) => WebSocket;
  private readonly url: () => string;
  private readonly network: Pick<Window, 'addEventListener' | 'removeEventListener'>;
  private readonly random: () => number;
  private readonly page: Pick<Document, 'addEventListener' | 'removeEventListener' | 'visibilityState'> | null;

  constructor(options: RealtimeSocketOptions = {}) {
    this.createWebSocket = options.createWebSocket ?? ((url) => new WebSocket(url));
    this.url = options.url ?? socketUrl;
    this.network = options.network ?? window;
    this.random = options.random ?? randomUnit;
    // Tests outside a browser have no document.
    this.page = options.page ?? (typeof document === 'undefined' ? null : document);
  }

  get state(): SocketState {
    return this.current;
  }

  /**
   * Pings sent on the current connection still waiting for their pong. The server answers every
   * ping with one pong, in order, so the pong of a ping sent now is the one after these.
   */
  get pingsInFlight(): number {
    return this.unanswered;
  }

  /** Opens the connection (idempotent) and keeps it open until {@link stop}. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.attempt = 0;
    this.healthy = true;
    this.network.addEventListener('online', this.reconnectNow);
    this.network.addEventListener('offline', this.dropConnection);
    this.page?.addEventListener('visibilitychange', this.onVisibility);
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.network.removeEventListener('online', this.reconnectNow);
    this.network.removeEventListener('offline', this.dropConnection);
    this.page?.removeEventListener('visibilitychange', this.onVisibility);
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    ws?.close(closeCodes.normal, 'client stopped');
    this.setState('idle');
  }

  /** Sends a frame when the socket is open; returns false otherwise. */
  send(frame: ClientFrame): boolean {
    if (this.ws?.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    if (frame.type === 'ping') this.unanswered += 1;
    return true;
  }

  subscribeState = (listener: Listener<SocketState>): (() => void) => {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  };

  onFrame(listener: Listener<ServerFrame>): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  private connect(): void {
    this.clearTimers();
    this.setState('connecting');
    let ws: WebSocket;
    try {
      ws = this.createWebSocket(this.url());
    } catch {
      this.setState('disconnected');
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.unanswered = 0;
    let opened = false;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      opened = true;
      this.setState('connected');
      this.setState('authenticating');
      this.send({ type: 'authenticate' });
    };
    ws.onmessage = (event: MessageEvent) => {
      if (this.ws !== ws) return;
      this.handleMessage(event.data);
    };
    ws.onclose = (event: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.clearTimers();
      const wasAuthenticated = this.current === 'authenticated';
      // The server answered and closed before authenticating (busy, blocked, auth failed): it is
      // up and refusing, so the slow back-off applies. A connection that never opened (the server
      // is down) keeps the fast one.
      if (opened && !wasAuthenticated) this.healthy = false;
      if (this.stopped) {
        this.setState('disconnected');
        return;
      }
      if (this.current !== 'auth_failed') this.setState('disconnected');
      // The server is shutting down (a restart, a deploy): another instance, or this one back,
      // takes the connection now. Only after an authenticated connection, so that a server that
      // keeps answering 1001 at once still gets the back-off.
      if (event.code === closeCodes.goingAway && wasAuthenticated) this.connect();
      else this.scheduleReconnect();
    };
    // 'error' is always followed by 'close', which does the work.
    ws.onerror = () => undefined;
  }

  private handleMessage(data: unknown): void {
    if (this.pongTimer) {
      clearTimeout(this.pongTimer);
      this.pongTimer = null;
    }
    if (typeof data !== 'string') return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      console.warn('realtime: ignoring a frame that is not JSON');
      return;
    }
    const parsed = serverFrameSchema.safeParse(json);
    if (!parsed.success) {
      console.warn('realtime: ignoring an unknown frame');
      return;
    }
    const frame = parsed.data;
    switch (frame.type) {
      case 'authenticated':
        this.attempt = 0;
        this.healthy = true;
        this.setState('authenticated');
        this.startPings();
        break;
      case 'auth_failed':
        this.healthy = false;
        this.setState('auth_failed');
        this.ws?.close(closeCodes.normal, 'authentication failed');
        break;
      case 'session_ended':
      case 'security_breach':
        // The server closes the socket next; coming back would only fail again.
        this.stopped = true;
        break;
      case 'pong':
        this.unanswered = Math.max(0, this.unanswered - 1);
        break;
      case 'network_security_alert':
        console.warn('network security alert:', frame.message);
        break;
      default:
        break;
    }
    for (const listener of this.frameListeners) listener(frame);
  }

  private startPings(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!this.send({ type: 'ping' })) return;
      if (this.pongTimer) clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.ws?.close(closeCodes.noPong, 'no pong'), PONG_TIMEOUT_MS);
    }, PING_INTERVAL_MS);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = reconnectDelay(this.attempt, this.random(), this.healthy);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.connect();
    }, delay);
  }

  /** A page coming back to the foreground may have had its timers throttled: try now. */
  private onVisibility = (): void => {
    if (this.page?.visibilityState === 'visible') this.reconnectNow();
  };

  /** The browser says the network is back, or the page is visible again: skip the rest of the back-off. */
  private reconnectNow = (): void => {
    if (this.stopped || this.ws) return;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.connect();
  };

  /**
   * The browser went offline: a socket may take a long time to notice by itself, so close it now;
   * the member sees "Reconnecting…" and sending is disabled until the catch-up after return.
   */
  private dropConnection = (): void => {
    this.ws?.close(closeCodes.browserOffline, 'browser offline');
  };

  private clearTimers(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.pongTimer) clearTimeout(this.pongTimer);
    this.reconnectTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
  }

  private setState(next: SocketState): void {
    if (this.current === next) return;
    this.current = next;
    for (const listener of this.stateListeners) listener(next);
  }
}
