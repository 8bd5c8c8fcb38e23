/**
 * Keeps `value` under `key` in `kept` (a Map in use order, oldest first), dropping the least
 * recently used entries until the bytes held (`bytesOf` each) are at most `budget` and fewer
 * than `maxEntries` are left beside it. The one eviction rule of the sets a search keeps per
 * data version (word-sets.ts, term-sets.ts).
 */
export function keepWithin<K, V>(
  kept: Map<K, V>,
  key: K,
  value: V,
  bytesOf: (v: V) => number,
  budget: number,
  maxEntries = Infinity
): void {
  kept.delete(key)
  let bytes = bytesOf(value)
  for (const v of kept.values()) bytes += bytesOf(v)
  while (kept.size > 0 && (bytes > budget || kept.size >= maxEntries)) {
    const oldest = kept.keys().next().value as K
    bytes -= bytesOf(kept.get(oldest)!)
    kept.delete(oldest)
  }
  kept.set(key, value)
}
