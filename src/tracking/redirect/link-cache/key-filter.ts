/**
 * A scalable Bloom filter of the link keys that exist ("certainly absent" or "maybe present"): the
 * link cache refuses a spray of random slugs without a query, in memory that grows with the number
 * of links, never with the traffic. A full filter gets a successor twice as large; a key is looked
 * up in all of them.
 */
const BITS_PER_KEY = 9.6; // 1% false positives
const HASHES = 7;

class BloomFilter {
  readonly bits: Uint32Array;
  readonly size: number;
  count = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(64, Math.ceil(capacity * BITS_PER_KEY));
    this.bits = new Uint32Array(Math.ceil(this.size / 32));
  }

  add(h1: number, h2: number): void {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % this.size;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.count++;
  }

  has(h1: number, h2: number): boolean {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % this.size;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

export class KeyFilter {
  private readonly filters: BloomFilter[];

  constructor(initialCapacity = 10_000) {
    this.filters = [new BloomFilter(initialCapacity)];
  }

  add(key: string): void {
    const [h1, h2] = hashes(key);
    if (this.filters.some((filter) => filter.has(h1, h2))) return;
    let current = this.filters[this.filters.length - 1]!;
    if (current.count >= current.capacity) {
      current = new BloomFilter(current.capacity * 2);
      this.filters.push(current);
    }
    current.add(h1, h2);
  }

  mightContain(key: string): boolean {
    const [h1, h2] = hashes(key);
    return this.filters.some((filter) => filter.has(h1, h2));
  }

  /** Bytes of bit arrays held, for tests and diagnostics. */
  get bytes(): number {
    return this.filters.reduce((sum, filter) => sum + filter.bits.byteLength, 0);
  }
}

/** Two independent 32-bit hashes; the k probe positions are h1 + i*h2 (Kirsch-Mitzenmacher). */
function hashes(key: string): [number, number] {
  const h1 = Bun.hash.murmur32v3(key, 0x9747b28c) >>> 0;
  const h2 = (Bun.hash.murmur32v3(key, 0x5bd1e995) | 1) >>> 0;
  return [h1, h2];
}
