/**
 * A small LRU cache. A hit only stamps the entry with a tick (no reordering, which cost a Map
 * delete and insert on every hit); when full, an insert evicts the entry with the oldest stamp.
 */
interface Entry<V> {
  value: V;
  tick: number;
}

export class LruCache<K, V> {
  private readonly map = new Map<K, Entry<V>>();
  private clock = 0;

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    entry.tick = ++this.clock;
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    if (!this.map.has(key) && this.map.size >= this.capacity) this.evictOldest();
    this.map.set(key, { value, tick: ++this.clock });
  }

  private evictOldest(): void {
    let oldestKey: K | undefined;
    let oldest = Infinity;
    for (const [k, e] of this.map) {
      if (e.tick < oldest) {
        oldest = e.tick;
        oldestKey = k;
      }
    }
    if (oldestKey !== undefined) this.map.delete(oldestKey);
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}
