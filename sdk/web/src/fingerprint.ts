/**
 * A 64-bit hash (hex) of browser traits for the landing beacon's `fingerprint`: the server only
 * compares it within one organization to spot one browser behind many addresses
 * (docs/protect.md, "fingerprint_reuse"). Not a cryptographic hash, and never used as an id.
 */
export function fingerprintHash(traits: readonly unknown[]): string {
  const text = traits.map((trait) => String(trait)).join('\u0001');
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return hex(h2) + hex(h1);
}
