/** The part of Web Crypto the id needs; browsers have it, React Native only with a polyfill. */
declare const crypto: { getRandomValues?: (bytes: Uint8Array) => Uint8Array } | undefined;

/**
 * 128 random bits as hex: the device id is random, never derived from the device's traits.
 * Without Web Crypto (React Native without a polyfill) Math.random fills the bytes: the id
 * only has to be unique, it guards nothing.
 */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  if (typeof crypto !== 'undefined' && crypto.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  let hex = '';
  for (let i = 0; i < bytes.length; i++) hex += (bytes[i]! + 0x100).toString(16).slice(1);
  return hex;
}
