import type { PinRecord, PinStore } from './key-trust';

/**
 * A {@link PinStore} in memory: for the server's test client and for tests. Pins last as long as
 * the object, which is the member's whole life in a test.
 */
export class MemoryPinStore implements PinStore {
  private readonly records = new Map<string, PinRecord>();

  /** The pins `ownerId` holds, only those of `contacts` when given. */
  async read(ownerId: string, contacts?: readonly string[]): Promise<readonly PinRecord[]> {
    if (contacts) return contacts.flatMap((contact) => this.records.get(`${ownerId}:${contact}`) ?? []);
    return [...this.records.values()].filter((r) => r.owner === ownerId);
  }

  /** Stores these pins, each replacing any earlier pin of the same owner and contact. */
  async write(records: readonly PinRecord[]): Promise<void> {
    for (const record of records) this.records.set(`${record.owner}:${record.contact}`, { ...record });
  }
}
