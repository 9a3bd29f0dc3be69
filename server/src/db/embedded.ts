/**
 * The embedded database (PGlite) run on a thread of its own (db/embedded-worker.ts): PGlite
 * executes its queries in WebAssembly on the thread that calls it, 0.2-3 ms of CPU a statement,
 * which on the server's thread delayed every request and every socket write behind them.
 *
 * This class speaks the part of PGlite's interface that Drizzle's driver and the server use
 * (`query`, `exec`, `transaction`, `dumpDataDir`, `close`), each call a message to the thread.
 *
 * When the thread dies (a crash of the WebAssembly runtime, an out-of-memory), the calls under way
 * fail as a lost connection would (08006) and later ones as a database starting up (57P03), both
 * answered 503 (db/client.ts isDatabaseUnavailable), while a new thread opens the same files:
 * PostgreSQL's crash recovery replays every committed transaction from the write-ahead log, so
 * nothing that was acknowledged is lost.
 */
import { Worker } from 'node:worker_threads';
import type { QueryOptions as PgliteQueryOptions, Results, Transaction } from '@electric-sql/pglite';
import { embeddedWorkerFile } from '../paths';
import type { Call, QueryOptions, Reply, Request, WireError, WorkerOptions } from './embedded-worker';

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };
type Queryable = Pick<Transaction, 'query' | 'exec'>;

/** Drizzle reads a value of these types as text; parsers are functions, which cannot cross threads. */
function textOids(parsers: PgliteQueryOptions['parsers']): number[] | undefined {
  if (!parsers) return undefined;
  let oids = checkedParsers.get(parsers);
  if (!oids) {
    oids = Object.entries(parsers).map(([oid, parse]) => {
      if (parse('probe', Number(oid)) !== 'probe') throw new Error(`a parser for type ${oid} cannot run on the database's thread`);
      return Number(oid);
    });
    checkedParsers.set(parsers, oids);
  }
  return oids;
}
/** Drizzle passes one parsers object per prepared query: each is checked once, not on every call. */
const checkedParsers = new WeakMap<NonNullable<PgliteQueryOptions['parsers']>, number[]>();

function unavailable(message: string, code: '08006' | '57P03'): Error {
  return Object.assign(new Error(message), { code });
}

/** Delay before a dead thread is replaced: a thread that dies again on opening must not spin. */
const RESTART_DELAY_MS = 1_000;

export class EmbeddedDatabase implements Queryable {
  private worker!: Worker;
  private ready!: Promise<void>;
  private up = false;
  /** Whether the database ever opened: from then on a dead thread is replaced. */
  private opened = false;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly options: WorkerOptions) {}

  /** Starts the thread and resolves once the database is open. */
  static async open(options: WorkerOptions): Promise<EmbeddedDatabase> {
    const db = new EmbeddedDatabase(options);
    db.start();
    await db.ready;
    return db;
  }

  private start(): void {
    const worker = new Worker(embeddedWorkerFile, { workerData: this.options });
    this.worker = worker;
    this.ready = new Promise((resolve, reject) => {
      worker.once('message', () => {
        this.up = true;
        this.opened = true;
        worker.on('message', (reply: Reply) => this.settle(reply));
        resolve();
      });
      worker.once('exit', () => reject(new Error('the embedded database did not open')));
      worker.once('error', reject);
    });
    // The first start's failure is the caller's (`open`); a later one is retried.
    this.ready.catch(() => undefined);
    worker.on('error', () => undefined);
    worker.once('exit', () => this.stopped(worker));
  }

  /** Fails what was under way and, if the database had opened, starts a new thread after a pause. */
  private stopped(worker: Worker): void {
    if (worker !== this.worker) return;
    this.up = false;
    for (const p of this.pending.values()) p.reject(unavailable('the embedded database stopped', '08006'));
    this.pending.clear();
    if (this.closed || !this.opened) return;
    const restarted = new Promise<void>((resolve) => {
      setTimeout(() => {
        if (this.closed) return;
        this.start();
        this.ready.then(resolve, () => undefined);
      }, RESTART_DELAY_MS);
    });
    this.ready = restarted;
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.value);
    else p.reject(fromWire(reply.error));
  }

  private call<T>(req: Call): Promise<T> {
    if (!this.up)
      return Promise.reject(unavailable(this.closed ? 'the embedded database is closed' : 'the embedded database is starting', '57P03'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...req, id } satisfies Request);
    });
  }

  private queryOn<T>(txId: number | undefined, sql: string, params: unknown[] = [], options: PgliteQueryOptions = {}): Promise<Results<T>> {
    const opts: QueryOptions = { rowMode: options.rowMode, textOids: textOids(options.parsers) };
    return this.call({ op: 'query', txId, sql, params, options: opts });
  }

  query<T>(sql: string, params?: unknown[], options?: PgliteQueryOptions): Promise<Results<T>> {
    return this.queryOn(undefined, sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return this.call({ op: 'exec', sql });
  }

  /**
   * Runs `fn` in one transaction, holding PGlite's transaction lock as PGlite's own `transaction`
   * does: committed when it resolves, rolled back when it throws.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const txId = await this.call<number>({ op: 'begin' });
    const tx: Queryable = {
      query: <R>(sql: string, params?: unknown[], options?: PgliteQueryOptions) => this.queryOn<R>(txId, sql, params, options),
      exec: (sql: string) => this.call<Results[]>({ op: 'exec', txId, sql }),
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      await this.call({ op: 'end', txId, commit: false }).catch(() => undefined);
      throw err;
    }
    await this.call({ op: 'end', txId, commit: true });
    return result;
  }

  /** PGlite's gzipped tarball of its data directory, taken between transactions. */
  async dumpDataDir(): Promise<Blob> {
    return new Blob([await this.call<ArrayBuffer>({ op: 'dump' })]);
  }

  /** Stops the thread as a crash would (tests of the recovery); resolves once its calls have failed. */
  async crash(): Promise<void> {
    const worker = this.worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await worker.terminate();
    await exited;
  }

  /** Resolves once the thread is open (again, after a crash). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.call({ op: 'close' }).catch(() => undefined);
    this.closed = true;
    await this.worker.terminate();
  }
}

function fromWire(error: WireError): Error {
  return Object.assign(new Error(error.message), error.fields);
}
