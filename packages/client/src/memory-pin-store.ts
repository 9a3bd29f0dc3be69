import type { PinRecord, PinStore } from './key-trust';

/**
 * A {@link PinStore} in memory: for the server's test client and for tests. Pins last as long as
 * the object, which is the member's whole life in a test.
 */
export class MemoryPinStore implements PinStore {
  private readonly records = new Map<string, PinRecord>();

  /** Every pin `ownerId` holds. */
  async read(ownerId: string): Promise<readonly PinRecord[]> {
    return [...this.records.values()].filter((r) => r.owner === ownerId);
  }

  /** Stores these pins, each replacing any earlier pin of the same owner and contact. */
  async write(records: readonly PinRecord[]): Promise<void> {
    for (const record of records) this.records.set(`${record.owner}:${record.contact}`, { ...record });
  }
}
