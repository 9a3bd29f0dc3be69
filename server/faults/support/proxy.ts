/**
 * A reverse proxy in front of several instances, as nginx is in docs/operations.md §5: each client
 * connection goes to the next instance in turn (round robin), WebSocket upgrades included; the
 * client's address is appended to `X-Forwarded-For` (the servers run with TRUST_PROXY=1). An
 * instance that refuses the connection is skipped for the next one (nginx's `proxy_next_upstream
 * error`): nothing reached it. One that dies with a request in flight cuts that request's client
 * connection, and the client cannot know whether it was served.
 *
 * It also counts what it saw, for the tests: answers by status, upgrades per instance.
 */
import http from 'node:http';
import net from 'node:net';

export type Proxy = {
  url: string;
  /** Every answer an instance gave, by HTTP status. */
  statuses: Map<number, number>;
  /** Answers with status 503, with their Retry-After header and when they came. */
  unavailable: { at: number; retryAfter: string | undefined }[];
  /** WebSocket upgrades forwarded, per instance port. */
  upgrades: Map<number, number>;
  /** Requests forwarded, by `METHOD /path` (query left out). */
  requests: Map<string, number>;
  /** Requests whose instance went away before answering: their clients got no answer. */
  cut: string[];
  close(): Promise<void>;
};

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export async function startProxy(instancePorts: readonly number[]): Promise<Proxy> {
  // Sockets take turns apart from HTTP connections, so that a test knows where each one went:
  // the first on the first instance, the second on the second, and so on.
  const turns = { http: 0, socket: 0 };
  /** The instance each client connection is served by. */
  const assigned = new WeakMap<net.Socket, number>();
  /** The client connection's instance; with `moveOn`, the one after it (it refused the connection). */
  const portOf = (client: net.Socket, kind: keyof typeof turns, moveOn: boolean) => {
    let index = assigned.get(client) ?? turns[kind]++ % instancePorts.length;
    if (moveOn) index = (index + 1) % instancePorts.length;
    assigned.set(client, index);
    return instancePorts[index]!;
  };
  const forwardedFor = (req: http.IncomingMessage) => {
    const prior = req.headers['x-forwarded-for'];
    const address = req.socket.remoteAddress ?? '';
    return prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${address}` : address;
  };
  const refused = (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED';

  const statuses = new Map<number, number>();
  const unavailable: Proxy['unavailable'] = [];
  const upgrades = new Map<number, number>();
  const tunnels = new Set<net.Socket>();
  const requests = new Map<string, number>();
  const cut: string[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const name = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      requests.set(name, (requests.get(name) ?? 0) + 1);
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
      headers['x-forwarded-for'] = forwardedFor(req);
      headers['x-forwarded-proto'] = 'http';
      const attempt = (tries: number) => {
        const up = http.request({
          host: '127.0.0.1',
          port: portOf(req.socket, 'http', tries > 0),
          method: req.method,
          path: req.url,
          headers,
          agent: false,
        });
        up.on('response', (answer) => {
          const status = answer.statusCode ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 503) unavailable.push({ at: Date.now(), retryAfter: answer.headers['retry-after'] });
          const out: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
          res.writeHead(status, out);
          answer.pipe(res);
          answer.on('error', () => req.socket.destroy());
          answer.on('aborted', () => req.socket.destroy());
        });
        up.on('error', (err: NodeJS.ErrnoException) => {
          if (refused(err) && tries + 1 < instancePorts.length) return attempt(tries + 1);
          if (refused(err) && !res.headersSent) {
            res.writeHead(502, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: 'No server answered', code: 'bad_gateway' }));
            return;
          }
          // The instance went away with the request in flight: the client gets no answer.
          cut.push(name);
          req.socket.destroy();
        });
        up.end(body);
      };
      attempt(0);
    });
  });

  server.on('upgrade', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => undefined);
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!/^x-forwarded-(for|proto)$/i.test(name)) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    lines.push(`X-Forwarded-For: ${forwardedFor(req)}`, 'X-Forwarded-Proto: http', '', '');
    const attempt = (tries: number) => {
      const port = portOf(client, 'socket', tries > 0);
      const up = net.connect(port, '127.0.0.1');
      let connected = false;
      up.once('connect', () => {
        connected = true;
        upgrades.set(port, (upgrades.get(port) ?? 0) + 1);
        up.write(lines.join('\r\n'));
        if (head.length) up.write(head);
        up.pipe(client);
        client.pipe(up);
      });
      up.on('error', (err: NodeJS.ErrnoException) => {
        if (!connected && refused(err) && tries + 1 < instancePorts.length) return attempt(tries + 1);
        client.destroy();
      });
      up.on('close', (hadError) => {
        if (connected && hadError) client.destroy();
      });
      client.on('close', () => up.destroy());
    };
    attempt(0);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    statuses,
    unavailable,
    upgrades,
    requests,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        for (const t of tunnels) t.destroy();
        server.close(() => resolve());
      }),
  };
}
