/**
 * Keeps `value` under `key` in a cache bounded to `limit` entries: a full map is emptied first.
 * The hot-path caches (user agents, addresses, landing URLs, ...) use it instead of an LRU: a hit
 * costs one lookup and no reordering, and after a clear the hot keys are back within a few requests.
 */
export function setBounded<K, V>(map: Map<K, V>, limit: number, key: K, value: V): V {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}
