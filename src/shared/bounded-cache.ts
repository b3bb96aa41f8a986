/**
 * Keeps `value` under `key` in a memo bounded to `limit` entries: a full map is emptied first.
 * The one memo of pure answers on the hot path (user agents, addresses, landing URLs, rule
 * facts, the IP memo of src/ipintel/address-memo.ts) instead of an LRU: a hit costs one lookup and
 * no reordering, and after a clear the hot keys are back within a few requests. Rows read from the
 * database, which expire, are kept in shared/lru.ts.
 */
export function setBounded<K, V>(map: Map<K, V>, limit: number, key: K, value: V): V {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}
