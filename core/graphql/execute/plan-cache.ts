/**
 * The plan cache: parsed and validated operations keyed by query text, schema-cache version, role
 * and operation name. The text is the outer key, looked up as the string the request body gave
 * (hashed once); the other three are compared in the few slots one text has. A composite key
 * string would copy the whole text and hash it again on every request.
 *
 * Eviction is least recently used over all slots: a hit only stamps the slot with a tick (no
 * reordering); when full, an insert evicts the slot with the oldest stamp.
 */
interface Slot<V> {
  version: number;
  role: string;
  operationName: string;
  value: V;
  tick: number;
}

export class PlanCache<V> {
  private readonly byText = new Map<string, Array<Slot<V>>>();
  private clock = 0;
  private count = 0;

  constructor(private readonly capacity: number) {}

  get(text: string, version: number, role: string, operationName: string): V | undefined {
    const slots = this.byText.get(text);
    if (slots === undefined) return undefined;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i]!;
      if (s.version === version && s.role === role && s.operationName === operationName) {
        s.tick = ++this.clock;
        return s.value;
      }
    }
    return undefined;
  }

  set(text: string, version: number, role: string, operationName: string, value: V): void {
    if (this.capacity <= 0) return;
    const slots = this.byText.get(text);
    const existing = slots?.find((s) => s.version === version && s.role === role && s.operationName === operationName);
    if (existing) {
      existing.value = value;
      existing.tick = ++this.clock;
      return;
    }
    if (this.count >= this.capacity) this.evictOldest();
    const slot: Slot<V> = { version, role, operationName, value, tick: ++this.clock };
    const current = this.byText.get(text);
    if (current) current.push(slot);
    else this.byText.set(text, [slot]);
    this.count++;
  }

  private evictOldest(): void {
    let oldestText: string | undefined;
    let oldestIndex = -1;
    let oldest = Infinity;
    for (const [text, slots] of this.byText) {
      for (let i = 0; i < slots.length; i++) {
        if (slots[i]!.tick < oldest) {
          oldest = slots[i]!.tick;
          oldestText = text;
          oldestIndex = i;
        }
      }
    }
    if (oldestText === undefined) return;
    const slots = this.byText.get(oldestText)!;
    if (slots.length === 1) this.byText.delete(oldestText);
    else slots.splice(oldestIndex, 1);
    this.count--;
  }

  /** Plans held (slots, not texts). */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.byText.clear();
    this.count = 0;
  }
}
