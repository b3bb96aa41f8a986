import type { KeyValue } from '../../core/src';
import type { AsyncKeyValue } from './native';

/**
 * AsyncStorage as the core's synchronous storage: the SDK's keys are read once at configure into
 * memory, and every write goes to memory at once and to AsyncStorage in the background, in order
 * (a later write of a key never lands before an earlier one). `settled()` waits for the writes.
 */
export class MirroredStorage implements KeyValue {
  private readonly values = new Map<string, string>();
  private writes: Promise<void> = Promise.resolve();
  /** Set by clear(): a request still under way then (an install's answer) writes nothing back. */
  private cleared = false;

  private constructor(
    private readonly backing: AsyncKeyValue,
    private readonly prefix: string,
    private readonly warn: (message: string, detail?: unknown) => void,
  ) {}

  /** Loads the keys under `prefix`; unreadable storage starts empty (the SDK then works in memory). */
  static async load(backing: AsyncKeyValue, prefix: string, warn: (message: string, detail?: unknown) => void): Promise<MirroredStorage> {
    const storage = new MirroredStorage(backing, prefix, warn);
    try {
      const keys = (await backing.getAllKeys()).filter((key) => key.startsWith(prefix));
      for (const key of keys) {
        const value = await backing.getItem(key);
        if (value !== null) storage.values.set(key, value);
      }
    } catch (error) {
      warn('svc: reading AsyncStorage failed; this launch keeps its data in memory', error);
    }
    return storage;
  }

  getItem(key: string): string | null {
    return this.values.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    if (this.cleared) return;
    this.values.set(key, value);
    this.enqueue(() => this.backing.setItem(key, value));
  }

  removeItem(key: string): void {
    if (this.cleared) return;
    this.values.delete(key);
    this.enqueue(() => this.backing.removeItem(key));
  }

  /**
   * Removes every key under the prefix, in memory and in AsyncStorage (those of other launches
   * included), and ignores every later write: the SDK that used this storage is done.
   */
  async clear(): Promise<void> {
    this.cleared = true;
    this.values.clear();
    this.enqueue(async () => {
      const keys = (await this.backing.getAllKeys()).filter((key) => key.startsWith(this.prefix));
      for (const key of keys) await this.backing.removeItem(key);
    });
    await this.settled();
  }

  /** Resolves when every write so far has reached AsyncStorage (or failed and was reported). */
  settled(): Promise<void> {
    return this.writes;
  }

  private enqueue(write: () => Promise<void>): void {
    this.writes = this.writes.then(write).catch((error) => this.warn('svc: writing AsyncStorage failed', error));
  }
}
