/**
 * Introspection answers kept per schema. An answer walks every type, synchronously: at 1,000
 * tables that was about 1.6 s of CPU in graphql-js (a few hundred ms as introspection-text.ts
 * writes it) during which the engine answers nothing else, and consoles, IDEs and code generators
 * ask it again and again. The answer depends only on the schema object and the introspection
 * fields asked (with their variables), so it is kept as the JSON text of each root field; roles
 * that share a schema share their answers, and a schema's answers go when the schema does (a
 * metadata change makes new schemas, so an answer is never stale).
 *
 * Answers are large (1-4 MB at 100 tables, ten times that at 1,000). One up to TEXT_LIMIT is kept as
 * its text and answered at once; a larger one is kept deflated (compressed off the event loop, on
 * libuv's pool, once it has been answered), since the JSON of a generated schema compresses 20-70
 * times: at 1,000 tables and 20 roles that is every schema's answer in a few MB instead of two of
 * them in 64, and a hit costs an inflate of tens of milliseconds instead of seconds of graphql-js.
 * The kept answers are bounded by their total kept size (text or deflated bytes), least recently
 * used first out; one answer may use at most half of the budget.
 */
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { type DocumentNode, type GraphQLSchema, Kind, print, visit } from 'graphql';

/**
 * The most kept over all schemas, in characters of text or bytes of deflated text: about the
 * same, since V8 keeps ASCII text (which introspection answers are, but for descriptions) one byte
 * per character.
 */
export const INTROSPECTION_ANSWERS_BUDGET = 64 * 2 ** 20;

/** Answers up to this many characters are kept as text; larger ones deflated. */
export const INTROSPECTION_TEXT_LIMIT = 4 * 2 ** 20;

/** An answer: each introspection root field's JSON text, by response key. */
export type IntrospectionTexts = Readonly<Record<string, string>>;

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

interface Answer {
  key: string;
  /** The texts, or (a large answer) each deflated as UTF-8. */
  kept: { texts: IntrospectionTexts } | { packed: Readonly<Record<string, Buffer>> };
  size: number;
  /** The schema's answers, which hold this one (weakly: the schema may be gone first). */
  owner: WeakRef<Map<string, Answer>>;
}

export class IntrospectionAnswers {
  private readonly bySchema = new WeakMap<GraphQLSchema, Map<string, Answer>>();
  /** Every kept answer, least recently used first. */
  private readonly order = new Set<Answer>();
  private size = 0;
  /** Large answers being deflated, by schema: asked again meanwhile, they are not deflated twice. */
  private readonly packing = new WeakMap<GraphQLSchema, Set<string>>();
  /** Lookups answered from a kept answer, and not (for tests and diagnostics). */
  hits = 0;
  misses = 0;
  /** A retired schema's answers leave the budget at once, not when they would be evicted. */
  private readonly retired = new FinalizationRegistry<Map<string, Answer>>((answers) => {
    for (const answer of answers.values()) this.forget(answer);
  });

  constructor(
    private readonly budget = INTROSPECTION_ANSWERS_BUDGET,
    private readonly textLimit = INTROSPECTION_TEXT_LIMIT,
  ) {}

  /** The kept answer: its texts at once, or a promise of them when it is kept deflated. */
  get(schema: GraphQLSchema, key: string): IntrospectionTexts | Promise<IntrospectionTexts> | undefined {
    const answer = this.bySchema.get(schema)?.get(key);
    if (answer === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.order.delete(answer);
    this.order.add(answer);
    return 'texts' in answer.kept ? answer.kept.texts : unpack(answer.kept.packed);
  }

  /**
   * Keeps an answer: at once when it is small, else once deflated (the promise, for tests, settles
   * then; it never rejects: an answer that cannot be deflated is simply not kept).
   */
  set(schema: GraphQLSchema, key: string, texts: IntrospectionTexts): Promise<void> {
    let size = key.length;
    for (const text of Object.values(texts)) size += text.length;
    if (size <= this.textLimit) {
      this.keep(schema, key, { texts }, size);
      return Promise.resolve();
    }
    let packing = this.packing.get(schema);
    if (packing?.has(key)) return Promise.resolve();
    if (!packing) this.packing.set(schema, (packing = new Set()));
    packing.add(key);
    // Only the schema's weak reference waits on the pool: a schema retired meanwhile is not held.
    const target = new WeakRef(schema);
    return pack(texts)
      .then((packed) => {
        const alive = target.deref();
        if (!alive) return;
        let bytes = key.length;
        for (const b of Object.values(packed)) bytes += b.length;
        this.keep(alive, key, { packed }, bytes);
      })
      .catch(() => {})
      .finally(() => {
        const alive = target.deref();
        if (alive) this.packing.get(alive)?.delete(key);
      });
  }

  private keep(schema: GraphQLSchema, key: string, kept: Answer['kept'], size: number): void {
    if (size > this.budget / 2) return;
    let answers = this.bySchema.get(schema);
    if (answers === undefined) {
      answers = new Map();
      this.bySchema.set(schema, answers);
      this.retired.register(schema, answers);
    }
    const earlier = answers.get(key);
    if (earlier !== undefined) this.forget(earlier);
    const answer: Answer = { key, kept, size, owner: new WeakRef(answers) };
    answers.set(key, answer);
    this.order.add(answer);
    this.size += size;
    for (const oldest of this.order) {
      if (this.size <= this.budget) break;
      this.forget(oldest);
    }
  }

  /** The total size kept (for tests). */
  get keptSize(): number {
    return this.size;
  }

  private forget(answer: Answer): void {
    if (!this.order.delete(answer)) return;
    this.size -= answer.size;
    const owner = answer.owner.deref();
    if (owner?.get(answer.key) === answer) owner.delete(answer.key);
  }
}

async function pack(texts: IntrospectionTexts): Promise<Record<string, Buffer>> {
  const entries = await Promise.all(Object.entries(texts).map(async ([field, text]) => [field, await deflate(text, { level: 1 })] as const));
  return Object.fromEntries(entries);
}

async function unpack(packed: Readonly<Record<string, Buffer>>): Promise<IntrospectionTexts> {
  const entries = await Promise.all(Object.entries(packed).map(async ([field, bytes]) => [field, (await inflate(bytes)).toString('utf8')] as const));
  return Object.fromEntries(entries);
}

/** The document's text, and whether it reads variables; once per document (plans keep theirs). */
const documentKeys = new WeakMap<DocumentNode, { text: string; readsVariables: boolean }>();

/** One per process: answers are kept per schema, whichever executor (GraphQL, Relay) asked. */
export const introspectionAnswers = new IntrospectionAnswers();

/** What an introspection answer is kept under: the document asked, and the variables when it reads any. */
export function introspectionKey(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined): string {
  let known = documentKeys.get(document);
  if (known === undefined) {
    let readsVariables = false;
    visit(document, {
      [Kind.VARIABLE]() {
        readsVariables = true;
      },
    });
    known = { text: print(document), readsVariables };
    documentKeys.set(document, known);
  }
  return known.readsVariables ? `${known.text}\u0000${JSON.stringify(variables ?? {})}` : known.text;
}
