/**
 * Group commit: requests that arrive while a write is in flight are written together in the
 * next statement, so under load one commit (one WAL flush, one round trip) answers many
 * requests, and at low load a request is written at once, alone, with no added wait.
 * A caller's promise settles only after the statement that holds its item has committed.
 */
export interface GroupCommitOptions<I, O> {
  /** Writes the items in one transaction; resolves to one result per item, in the same order. */
  write(items: I[]): Promise<O[]>;
  /** The most items in one statement. */
  maxBatch?: number;
  /** How many statements may run at once (at most the connections the pool can spare). */
  maxInFlight?: number;
  /**
   * Items with the same key never share a statement, nor run in two statements at once: an
   * upsert cannot touch one row twice in a statement, and two statements that upsert the same
   * keys in opposite orders could deadlock. null means the item conflicts with nothing.
   */
  keyOf?(item: I): string | null;
  /**
   * Whether a failed statement may be retried item by item. Only when the database refused the
   * statement (nothing was committed); a lost connection may have committed it, so it is not.
   */
  retryAlone?(error: unknown): boolean;
  /** Told how many items each committed statement held (the node's write-burst meter counts them). */
  onCommitted?(items: number): void;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
  /** Items waiting for a statement, and items in statements not yet answered. */
  pending(): number;
}

interface Waiting<I, O> {
  item: I;
  key: string | null;
  resolve(result: O): void;
  reject(error: unknown): void;
}

export function createGroupCommit<I, O>({
  write,
  maxBatch = 256,
  maxInFlight = 2,
  keyOf = () => null,
  retryAlone = () => false,
  onCommitted,
}: GroupCommitOptions<I, O>): GroupCommit<I, O> {
  let queue: Waiting<I, O>[] = [];
  let inFlight = 0;
  let inFlightItems = 0;
  let scheduled = false;
  const busyKeys = new Set<string>();

  function schedule() {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    // A microtask, not a timer: items submitted in the same turn join the statement, and
    // nothing waits for a clock when the database is idle.
    queueMicrotask(() => {
      scheduled = false;
      flush();
    });
  }

  /** Takes the next batch off the queue, leaving behind items whose key is taken. */
  function takeBatch(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const rest: Waiting<I, O>[] = [];
    for (const waiting of queue) {
      if (batch.length < maxBatch && (waiting.key === null || !busyKeys.has(waiting.key))) {
        if (waiting.key !== null) busyKeys.add(waiting.key);
        batch.push(waiting);
      } else {
        rest.push(waiting);
      }
    }
    queue = rest;
    return batch;
  }

  /** Writes a batch; resolves to how each item settles, without settling it yet. */
  async function run(batch: Waiting<I, O>[]): Promise<((() => void))[]> {
    try {
      const results = await write(batch.map((waiting) => waiting.item));
      if (results.length !== batch.length) throw new Error(`group commit: ${results.length} results for ${batch.length} items`);
      onCommitted?.(batch.length);
      return batch.map((waiting, i) => () => waiting.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1 || !retryAlone(error)) return batch.map((waiting) => () => waiting.reject(error));
      // One bad item (or a deadlock with another node's statement) must not fail the others:
      // each is written again on its own, so only the item at fault sees the error.
      return (await Promise.all(batch.map((waiting) => run([waiting])))).flat();
    }
  }

  function flush() {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) return; // every waiting item's key is in flight
      inFlight++;
      inFlightItems += batch.length;
      void run(batch).then((settlements) => {
        // Bookkeeping first, so a caller that wakes up sees this statement finished.
        inFlight--;
        inFlightItems -= batch.length;
        for (const waiting of batch) if (waiting.key !== null) busyKeys.delete(waiting.key);
        for (const settle of settlements) settle();
        schedule();
      });
    }
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, key: keyOf(item), resolve, reject });
        schedule();
      });
    },
    pending: () => queue.length + inFlightItems,
  };
}
