/**
 * ULIDs: time-ordered, 26 characters, unique across nodes (80 random bits per millisecond) and
 * monotonic within this process. Every redirect mints one, so the time and the upper random half
 * are encoded once per millisecond, and ids of the same millisecond count up in the lower 40 bits
 * (as the ulid package's monotonic factory does).
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LOW_SPAN = 2 ** 40;

let lastMs = -1;
let head = '';
let high = 0;
let low = 0;

export function newId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    const random = crypto.getRandomValues(new Uint32Array(3));
    // 40 random bits each for the upper and lower halves of the 80-bit random part.
    high = (random[0]! & 0xff) * 2 ** 32 + random[1]!;
    low = (random[0]! >>> 24) * 2 ** 32 + random[2]!;
    head = base32(now, 10) + base32(high, 8);
  } else if (++low === LOW_SPAN) {
    // Same millisecond (or a clock that went back): count on from the last id.
    low = 0;
    high = (high + 1) % LOW_SPAN;
    head = base32(lastMs, 10) + base32(high, 8);
  }
  return head + base32Of40Bits(low);
}

/** Every pair of Crockford digits (32 * 32 = 2^10 values), so a 40-bit value is four lookups. */
const PAIRS = Array.from({ length: 1024 }, (_, n) => CROCKFORD[n >> 5]! + CROCKFORD[n & 31]!);
const TWO_20 = 2 ** 20;

/** `value` (below 2^40) as 8 Crockford base32 characters: the part of an id that changes with every id. */
function base32Of40Bits(value: number): string {
  const upper = Math.floor(value / TWO_20);
  const lower = value % TWO_20;
  return PAIRS[upper >> 10]! + PAIRS[upper & 1023]! + PAIRS[lower >> 10]! + PAIRS[lower & 1023]!;
}

/**
 * The first ten characters of every ULID minted at `ms`: its millisecond time. Ids sort by it, so
 * the ids of one day lie between the prefixes of its first millisecond and the next day's.
 */
export function ulidTimePrefix(ms: number): string {
  return base32(ms, 10);
}

/** `value` (below 32^digits, at most 2^53) as `digits` Crockford base32 characters. */
function base32(value: number, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i++) {
    text = CROCKFORD[value % 32]! + text;
    value = Math.floor(value / 32);
  }
  return text;
}

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
