/**
 * Debian's nginx in front of several instances, with the repository's own configuration
 * (deploy/nginx/enclave-proxy.conf included as is, after the `set $enclave_upstream` of
 * enclave-site.conf, and that file's upstream block with the test's addresses): a process of the
 * test's, not a daemon, with its configuration, pid,
 * temporary files and logs in a temporary directory, listening on a free port of 127.0.0.1.
 * `scripts/test-all.sh` installs nginx when it is missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const NGINX = '/usr/sbin/nginx';
/** The header in which a test's browser names the client address nginx reports for it (see config below). */
export const CLIENT_ADDRESS_HEADER = 'X-Test-Client-Address';
const proxyConf = path.resolve(import.meta.dirname, '../../deploy/nginx/enclave-proxy.conf');
const siteConf = path.resolve(import.meta.dirname, '../../deploy/nginx/enclave-site.conf');

/** The upstream the shipped site names for the snippet: its `set $enclave_upstream <name>;`. */
function shippedUpstreamName(site: string): string {
  const names = new Set([...site.matchAll(/^\s*set \$enclave_upstream ([\w.-]+);$/gm)].map((m) => m[1]));
  const [name] = names;
  if (names.size !== 1 || name === undefined) throw new Error(`${siteConf} should set $enclave_upstream to one upstream name`);
  return name;
}

/**
 * The `upstream <name> { … }` block of enclave-site.conf with one `server` line per port of the
 * test in place of its example addresses, each with the parameters the shipped lines carry
 * (`max_fails=0`), and its other lines (`keepalive`) as they are: the test runs what is shipped.
 */
function shippedUpstream(site: string, name: string, ports: readonly number[]): string {
  const block = new RegExp(`^upstream ${name.replaceAll('.', '\\.')} \\{$[\\s\\S]*?^\\}$`, 'm').exec(site)?.[0];
  if (!block) throw new Error(`no "upstream ${name} { … }" block in ${siteConf}`);
  const lines = block.split('\n');
  const isServer = (line: string) => /^\s*server\s/.test(line);
  // `server <address> <parameters>;`: what follows the address.
  const parameters = new Set(lines.filter(isServer).map((line) => /^\s*server\s+[^\s;]+([^;]*);$/.exec(line)?.[1]));
  const [rest] = parameters;
  if (parameters.size !== 1 || rest === undefined)
    throw new Error(`the server lines of ${siteConf} should read "server <address> <parameters>;", all with the same parameters`);
  const [first, ...others] = lines.filter((line) => !isServer(line));
  return [first, ...ports.map((p) => `    server 127.0.0.1:${p}${rest};`), ...others].join('\n');
}

/** The whole configuration: the site of deploy/nginx/enclave-site.conf without TLS, on `port`. */
function config(dir: string, port: number, upstreamPorts: readonly number[]): string {
  const site = fs.readFileSync(siteConf, 'utf8');
  const upstream = shippedUpstreamName(site);
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${shippedUpstream(site, upstream, upstreamPorts)}
  server {
    listen 127.0.0.1:${port};
    # Test only: every browser here comes from 127.0.0.1, an address the server never lets the
    # creator block (its own). A browser may say which client address it stands for in
    # ${CLIENT_ADDRESS_HEADER}, and nginx takes it as the peer's (the realip module), as if the
    # browser had come from there; then nginx appends it to X-Forwarded-For as it would any peer's.
    set_real_ip_from 127.0.0.1;
    real_ip_header ${CLIENT_ADDRESS_HEADER};
    set $enclave_upstream ${upstream};
    include ${proxyConf};
  }
}
`;
}

export class Nginx {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
    private readonly exited: Promise<void>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What nginx logged: its error log (warnings, upstreams it gave up on). */
  errorLog(): string {
    return fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8');
  }

  /** Starts nginx on `port` in front of the instances on `upstreamPorts`; resolves once it answers `/api/health` with 200. */
  static async start(port: number, upstreamPorts: readonly number[]): Promise<Nginx> {
    if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (scripts/test-all.sh does)`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-nginx-'));
    // Run as root, nginx's workers drop to `nobody`: they must reach their temporary directories.
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port, upstreamPorts));
    const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const nginx = new Nginx(child, dir, port, exited);
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${output}${nginx.errorLog()}`);
      const ok = await fetch(`${nginx.url}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return nginx;
      if (tries > 200) {
        await nginx.stop();
        throw new Error(`nginx did not answer within 10 s:\n${output}`);
      }
      await sleep(50);
    }
  }

  /** Fast shutdown (SIGTERM), then its directory is removed. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
