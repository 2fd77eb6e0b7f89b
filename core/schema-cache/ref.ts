/** Holds the live schema-cache snapshot; swapping it is atomic for requests already running. */
import type { SchemaCache } from './cache.js';

export class SchemaCacheRef {
  private snapshot: SchemaCache;

  constructor(initial: SchemaCache) {
    this.snapshot = initial;
  }

  get current(): SchemaCache {
    return this.snapshot;
  }

  swap(next: SchemaCache): void {
    this.snapshot = next;
  }
}
