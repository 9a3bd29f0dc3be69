/**
 * The browser's IndexedDB database `enclave`: `identity` holds each member's private keys as
 * non-extractable CryptoKeys (so a script that reads storage still cannot export them) with the
 * public keys derived from them, `contacts` the pinned fingerprints of other members, keyed by
 * owner, and `history` the member's recent messages sealed under a key kept in `identity`
 * (chat/history-cache.ts). Logout empties `identity` and `history`; the pins survive it.
 */
export const DB_NAME = 'enclave';
/** 2: the `history` store. */
const DB_VERSION = 2;
export const IDENTITY_STORE = 'identity';
export const CONTACTS_STORE = 'contacts';
export const HISTORY_STORE = 'history';

export type StoreName = typeof IDENTITY_STORE | typeof CONTACTS_STORE | typeof HISTORY_STORE;

function promisify<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(IDENTITY_STORE)) db.createObjectStore(IDENTITY_STORE);
      if (!db.objectStoreNames.contains(CONTACTS_STORE)) db.createObjectStore(CONTACTS_STORE);
      if (!db.objectStoreNames.contains(HISTORY_STORE)) db.createObjectStore(HISTORY_STORE);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB open failed'));
    request.onblocked = () => reject(new Error('IndexedDB open blocked'));
  });
}

/**
 * Runs one request against a store and closes the database afterwards, so that no connection is
 * left open (a later version upgrade or `deleteDatabase` would be blocked by it).
 */
export async function withStore<T>(name: StoreName, mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    const tx = db.transaction(name, mode);
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
    const [result] = await Promise.all([promisify(run(tx.objectStore(name))), done]);
    return result;
  } finally {
    db.close();
  }
}

/**
 * Empties one store and leaves the others as they are. Logout clears the identity and history
 * stores only: the contacts' pins must outlive a session, or a server could have them re-pinned at will.
 */
export async function clearStore(name: StoreName): Promise<void> {
  await withStore(name, 'readwrite', (store) => store.clear());
}

/** Runs several writes in one transaction (one database open instead of one per record). */
export async function writeBatch(name: StoreName, write: (store: IDBObjectStore) => void): Promise<void> {
  await transact([name], 'readwrite', (tx) => write(tx.objectStore(name)));
}

/**
 * Runs requests over several stores in one transaction: a write that depends on what another
 * store holds (a record written only while its key is still there) sees that store as it is.
 * Resolves, once the transaction is complete, to what `run` returned (an object its requests'
 * callbacks fill in).
 */
export async function transact<T>(names: StoreName[], mode: IDBTransactionMode, run: (tx: IDBTransaction) => T): Promise<T> {
  const db = await open();
  try {
    const tx = db.transaction(names, mode);
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
    const result = run(tx);
    await done;
    return result;
  } finally {
    db.close();
  }
}

/**
 * Deletes the whole database, pins included (the member's own emergency wipe). When another tab
 * holds it open the deletion waits for that tab; meanwhile every store is emptied here, so this
 * browser holds nothing either way.
 */
export function deleteDatabase(): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(DB_NAME);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error('IndexedDB delete failed'));
    request.onblocked = () => {
      Promise.all([clearStore(IDENTITY_STORE), clearStore(CONTACTS_STORE), clearStore(HISTORY_STORE)]).then(() => resolve(), reject);
    };
  });
}
