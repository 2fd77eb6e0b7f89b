/**
 * Introspection answers kept per schema. graphql-js answers the standard introspection query by
 * walking every type, synchronously: at 1,000 tables that is about 1.6 s of CPU during which the
 * engine answers nothing else, and consoles, IDEs and code generators ask it again and again. The
 * answer depends only on the schema object and the introspection fields asked (with their
 * variables), so it is kept as the JSON text of each root field; roles that share a schema share
 * their answers, and a schema's answers go when the schema does (a metadata change makes new
 * schemas, so an answer is never stale).
 *
 * Answers are large (1-4 MB at 100 tables, ten times that at 1,000), so the kept ones are bounded
 * by their total size, oldest first out; one answer may use at most half of the budget.
 */
import { type DocumentNode, type GraphQLSchema, Kind, print, visit } from 'graphql';

/**
 * The most text kept over all schemas, in characters: about as many bytes, since V8 keeps ASCII
 * text (which introspection answers are, but for descriptions) one byte per character.
 */
export const INTROSPECTION_ANSWERS_BUDGET = 64 * 2 ** 20;

/** An answer: each introspection root field's JSON text, by response key. */
export type IntrospectionTexts = Readonly<Record<string, string>>;

interface Answer {
  key: string;
  texts: IntrospectionTexts;
  size: number;
  /** The schema's answers, which hold this one (weakly: the schema may be gone first). */
  owner: WeakRef<Map<string, Answer>>;
}

export class IntrospectionAnswers {
  private readonly bySchema = new WeakMap<GraphQLSchema, Map<string, Answer>>();
  /** Every kept answer, least recently used first. */
  private readonly order = new Set<Answer>();
  private size = 0;
  /** Lookups answered from a kept answer, and not (for tests and diagnostics). */
  hits = 0;
  misses = 0;
  /** A retired schema's answers leave the budget at once, not when they would be evicted. */
  private readonly retired = new FinalizationRegistry<Map<string, Answer>>((answers) => {
    for (const answer of answers.values()) this.forget(answer);
  });

  constructor(private readonly budget = INTROSPECTION_ANSWERS_BUDGET) {}

  get(schema: GraphQLSchema, key: string): IntrospectionTexts | undefined {
    const answer = this.bySchema.get(schema)?.get(key);
    if (answer === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.order.delete(answer);
    this.order.add(answer);
    return answer.texts;
  }

  set(schema: GraphQLSchema, key: string, texts: IntrospectionTexts): void {
    let size = key.length;
    for (const text of Object.values(texts)) size += text.length;
    if (size > this.budget / 2) return;
    let answers = this.bySchema.get(schema);
    if (answers === undefined) {
      answers = new Map();
      this.bySchema.set(schema, answers);
      this.retired.register(schema, answers);
    }
    const earlier = answers.get(key);
    if (earlier !== undefined) this.forget(earlier);
    const answer: Answer = { key, texts, size, owner: new WeakRef(answers) };
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
