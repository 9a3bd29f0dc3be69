/**
 * The embedded database's own thread: it owns the PGlite instance, whose queries run in
 * WebAssembly on the thread that calls them, and answers the server's thread (db/embedded.ts)
 * over a message port, so that the server's thread only parses, checks and fans out.
 *
 * This file is started as a worker by its path (paths.ts): it imports only npm packages and types,
 * so that Node runs it as it is in development (type stripping) and bundled in production.
 */
import { parse, PGlite, protocol, type QueryOptions as PgliteQueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';

export type WorkerOptions = { dataDir: string; startParams: string[] };

/** A query's options that can cross threads: the type OIDs whose values stay text (Drizzle's parsers). */
export type QueryOptions = { rowMode?: 'array' | 'object'; textOids?: number[] };

/** What the server's thread asks; each request carries an id its reply repeats. */
export type Call =
  | { op: 'query'; txId?: number; sql: string; params: unknown[]; options: QueryOptions }
  | { op: 'exec'; txId?: number; sql: string }
  | { op: 'begin' }
  | { op: 'end'; txId: number; commit: boolean }
  | { op: 'dump' }
  | { op: 'close' };
export type Request = Call & { id: number };

/** A failure as it crosses the thread: the message and PostgreSQL's fields (code, detail, ...). */
export type WireError = { message: string; fields: Record<string, unknown> };
export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

const port = parentPort!;
const { dataDir, startParams } = workerData as WorkerOptions;
const pg = await PGlite.create(dataDir, { startParams });

/** Open transactions by id: how to end one (commit or roll back), and how it ended. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<void> }>();
let nextTxId = 1;

/** Thrown inside PGlite's transaction callback to have it roll back. */
class Rollback extends Error {}

function reply(id: number, run: () => Promise<unknown>): void {
  run().then(
    (value) => port.postMessage({ id, ok: true, value } satisfies Reply, value instanceof ArrayBuffer ? [value] : []),
    (err: unknown) => port.postMessage({ id, ok: false, error: toWire(err) } satisfies Reply),
  );
}

function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  // PGlite's DatabaseError carries PostgreSQL's fields as own properties; keep the cloneable ones.
  for (const [k, v] of Object.entries(err)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { message: err.message, fields };
}

/** The queries of a transaction run on it; the others wait for PGlite's lock like any other caller. */
function target(txId: number | undefined): Pick<Transaction, 'query' | 'exec'> {
  if (txId === undefined) return pg;
  const open = transactions.get(txId);
  if (!open) throw new Error('transaction already ended');
  return open.tx;
}

const keepText = (value: string) => value;

/**
 * Statements with parameters are parsed and planned once, as named statements, and bound on each
 * call after: PGlite's own `query` parses, describes and plans the text on every call, and planning
 * a send's insert cost more than running it. The most recently used STATEMENT_CACHE are kept.
 */
const prepared = new Map<string, { name: string; paramTypes: number[] }>();
const STATEMENT_CACHE = 256;
let nextStatement = 1;

/** Runs protocol messages in one call into PGlite (each call is a crossing into WebAssembly). */
function run(...messages: Uint8Array[]) {
  const all = new Uint8Array(messages.reduce((n, m) => n + m.length, 0));
  messages.reduce((at, m) => (all.set(m, at), at + m.length), 0);
  return pg.execProtocolStream(all, { syncToFs: false });
}

/** PGlite's `query`, on a named statement; `inTransaction`: the caller holds the transaction lock. */
async function preparedQuery(sql: string, params: unknown[], options: PgliteQueryOptions, inTransaction: boolean): Promise<Results> {
  const query = () =>
    pg._runExclusiveQuery(async () => {
      const { serialize } = protocol;
      let statement = prepared.get(sql);
      try {
        if (statement) prepared.delete(sql);
        else {
          const name = `enclave_${nextStatement++}`;
          const described = await run(serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync());
          statement = { name, paramTypes: parse.parseDescribeStatementResults(described) };
        }
        prepared.set(sql, statement);
        if (prepared.size > STATEMENT_CACHE) {
          const [oldest, { name }] = prepared.entries().next().value!;
          prepared.delete(oldest);
          await run(serialize.close({ type: 'S', name }), serialize.sync());
        }
        const { paramTypes } = statement;
        const values = params.map((v, i) => (v === null || v === undefined ? null : (pg.serializers[paramTypes[i]!] ?? String)(v)));
        // An error skips the rest up to the sync, which answers; PGlite then throws it.
        const messages = await run(
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        );
        if (!inTransaction) await pg.syncToFs();
        return parse.parseResults(messages, pg.parsers, options)[0]!;
      } catch (err) {
        // A statement PostgreSQL no longer has, or whose plan a schema change broke: made again next time.
        const code = (err as { code?: unknown }).code;
        if (code === '26000' || code === '0A000') prepared.delete(sql);
        throw err;
      }
    });
  return inTransaction ? query() : pg._runExclusiveTransaction(query);
}

/** A statement without parameters (DDL, `select 1`) goes as PGlite runs it; the others as named statements. */
function runQuery(txId: number | undefined, sql: string, params: unknown[], options: PgliteQueryOptions): Promise<Results> {
  const on = target(txId);
  return params.length ? preparedQuery(sql, params, options, on !== pg) : on.query(sql, params, options);
}

/** Opens a transaction (once PGlite's transaction lock is ours) and answers its id. */
function begin(): Promise<number> {
  return new Promise((started, failed) => {
    const txId = nextTxId++;
    let end!: (commit: boolean) => void;
    const ended = new Promise<boolean>((resolve) => (end = resolve));
    const done = pg
      .transaction(async (tx) => {
        transactions.set(txId, { tx, end, done });
        started(txId);
        if (!(await ended)) throw new Rollback();
      })
      .catch((err: unknown) => {
        if (!(err instanceof Rollback)) throw err;
      })
      .finally(() => transactions.delete(txId));
    // A failed BEGIN rejects here; once started, the failure is `end`'s to answer.
    done.catch(failed);
  });
}

async function endTransaction(txId: number, commit: boolean): Promise<void> {
  const open = transactions.get(txId);
  if (!open) throw new Error('transaction already ended');
  open.end(commit);
  await open.done;
}

port.on('message', (req: Request) => {
  switch (req.op) {
    case 'query': {
      const { rowMode, textOids } = req.options;
      const parsers = textOids && Object.fromEntries(textOids.map((oid) => [oid, keepText]));
      return reply(req.id, () => runQuery(req.txId, req.sql, req.params, { rowMode, parsers }));
    }
    case 'exec':
      return reply(req.id, async () => target(req.txId).exec(req.sql));
    case 'begin':
      return reply(req.id, begin);
    case 'end':
      return reply(req.id, () => endTransaction(req.txId, req.commit));
    case 'dump':
      return reply(req.id, async () => (await pg.dumpDataDir('gzip')).arrayBuffer());
    case 'close':
      return reply(req.id, () => pg.close());
  }
});
port.postMessage('ready');
