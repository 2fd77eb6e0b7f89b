/**
 * Parses a template of the webhook template language into a tree. The text is JSON extended with
 * `{{ expr }}` values, `"... {{ expr }} ..."` interpolated strings, `{{ if c }} a {{ elif d }} b
 * {{ else }} c {{ end }}` and `{{ range i, x := expr }} body {{ end }}`. Expressions have paths
 * (`$body.a[0]['k']`, optional `?.` / `?[ ]`), `??`, comparisons, `in`, `&&`, `||`, `not`, literals
 * and one-argument function calls. One pass over the characters, positions 1-based as the
 * reference reports them.
 */
import type { BinaryOp, Json, Node, Pos } from './ast.js';
import { KritiError } from './errors.js';

const IDENT_START = /[A-Za-z_$]/;
const IDENT_CHAR = /[A-Za-z0-9_$]/;
const KEYWORDS = new Set(['if', 'elif', 'else', 'end', 'range', 'true', 'false', 'null', 'in', 'not']);

export function parseTemplate(text: string): Node {
  const p = new Parser(text);
  const node = p.value();
  p.ws();
  if (!p.atEnd()) throw p.error('unexpected input after the template value');
  return node;
}

class Parser {
  private i = 0;
  private line = 1;
  private col = 1;

  constructor(private readonly src: string) {}

  atEnd(): boolean {
    return this.i >= this.src.length;
  }

  pos(): Pos {
    return { line: this.line, column: this.col };
  }

  error(message: string, start: Pos = this.pos()): KritiError {
    return new KritiError('Parse Error', message, start, this.pos());
  }

  private peek(n = 0): string {
    return this.src[this.i + n] ?? '';
  }

  private startsWith(s: string): boolean {
    return this.src.startsWith(s, this.i);
  }

  private advance(n = 1): void {
    for (let k = 0; k < n && this.i < this.src.length; k++) {
      if (this.src[this.i] === '\n') {
        this.line++;
        this.col = 1;
      } else {
        this.col++;
      }
      this.i++;
    }
  }

  ws(): void {
    while (!this.atEnd() && /\s/.test(this.peek())) this.advance();
  }

  private expect(s: string, what = `"${s}"`): void {
    this.ws();
    if (!this.startsWith(s)) throw this.error(`expected ${what}`);
    this.advance(s.length);
  }

  /** A JSON-ish value at template level. */
  value(): Node {
    this.ws();
    const pos = this.pos();
    if (this.startsWith('{{')) return this.block();
    const c = this.peek();
    if (c === '{') return this.object(pos);
    if (c === '[') return this.array(pos, () => this.value());
    if (c === '"') return this.interpolatedString();
    if (c === '-' || /[0-9]/.test(c)) return { k: 'literal', value: this.number(), pos };
    if (IDENT_START.test(c)) {
      const word = this.identifier();
      if (word === 'true' || word === 'false') return { k: 'literal', value: word === 'true', pos };
      if (word === 'null') return { k: 'literal', value: null, pos };
      throw this.error(`unexpected "${word}"`, pos);
    }
    throw this.error(this.atEnd() ? 'unexpected end of input' : `unexpected "${c}"`);
  }

  private object(pos: Pos): Node {
    this.advance();
    const fields: Array<[Node, Node]> = [];
    this.ws();
    if (this.peek() === '}') {
      this.advance();
      return { k: 'object', fields, pos };
    }
    for (;;) {
      this.ws();
      if (this.peek() !== '"') throw this.error('expected an object key (a string)');
      const key = this.interpolatedString();
      this.expect(':');
      fields.push([key, this.value()]);
      this.ws();
      if (this.peek() === ',') {
        this.advance();
        continue;
      }
      if (this.peek() === '}') {
        this.advance();
        return { k: 'object', fields, pos };
      }
      throw this.error('expected "," or "}"');
    }
  }

  private array(pos: Pos, item: () => Node): Node {
    this.advance();
    const items: Node[] = [];
    this.ws();
    if (this.peek() === ']') {
      this.advance();
      return { k: 'array', items, pos };
    }
    for (;;) {
      items.push(item());
      this.ws();
      if (this.peek() === ',') {
        this.advance();
        continue;
      }
      if (this.peek() === ']') {
        this.advance();
        return { k: 'array', items, pos };
      }
      throw this.error('expected "," or "]"');
    }
  }

  private number(): number {
    const start = this.pos();
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.src.slice(this.i));
    if (!m) throw this.error('invalid number', start);
    this.advance(m[0].length);
    return Number(m[0]);
  }

  private identifier(): string {
    let s = '';
    while (!this.atEnd() && IDENT_CHAR.test(this.peek())) {
      s += this.peek();
      this.advance();
    }
    return s;
  }

  /** A double-quoted string whose `{{ expr }}` parts are evaluated and concatenated. */
  private interpolatedString(): Node {
    const pos = this.pos();
    this.advance();
    const parts: Array<string | Node> = [];
    let text = '';
    for (;;) {
      if (this.atEnd()) throw this.error('unterminated string', pos);
      const c = this.peek();
      if (c === '"') {
        this.advance();
        break;
      }
      if (c === '\\') {
        text += this.escape();
        continue;
      }
      if (this.startsWith('{{')) {
        if (text) parts.push(text);
        text = '';
        this.advance(2);
        parts.push(this.expression());
        this.expect('}}');
        continue;
      }
      text += c;
      this.advance();
    }
    if (text || parts.length === 0) parts.push(text);
    if (parts.length === 1 && typeof parts[0] === 'string') return { k: 'literal', value: parts[0], pos };
    return { k: 'string', parts, pos };
  }

  private escape(): string {
    const start = this.pos();
    this.advance();
    const c = this.peek();
    this.advance();
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case "'":
        return "'";
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.src.slice(this.i, this.i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.error('invalid unicode escape', start);
        this.advance(4);
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        throw this.error(`invalid escape "\\${c}"`, start);
    }
  }

  /** After `{{`: an expression, or an if/range block. */
  private block(): Node {
    const pos = this.pos();
    this.advance(2);
    this.ws();
    const word = this.peekWord();
    if (word === 'if') return this.ifBlock(pos);
    if (word === 'range') return this.rangeBlock(pos);
    const e = this.expression();
    this.expect('}}');
    return e;
  }

  private peekWord(): string {
    const m = /^[A-Za-z_]+/.exec(this.src.slice(this.i));
    return m ? m[0] : '';
  }

  private keyword(word: string): void {
    this.ws();
    if (this.peekWord() !== word) throw this.error(`expected "${word}"`);
    this.advance(word.length);
  }

  /** `{{ word }}` closing or continuing a block. */
  private blockWord(): string {
    this.ws();
    if (!this.startsWith('{{')) throw this.error('expected "{{ else }}", "{{ elif }}" or "{{ end }}"');
    this.advance(2);
    this.ws();
    const word = this.peekWord();
    if (word !== 'elif' && word !== 'else' && word !== 'end') throw this.error('expected "elif", "else" or "end"');
    this.advance(word.length);
    return word;
  }

  private ifBlock(pos: Pos): Node {
    this.keyword('if');
    const branches: Array<[Node, Node]> = [];
    let cond = this.expression();
    this.expect('}}');
    for (;;) {
      const body = this.value();
      branches.push([cond, body]);
      const word = this.blockWord();
      if (word === 'elif') {
        cond = this.expression();
        this.expect('}}');
        continue;
      }
      if (word === 'end') throw this.error('an if block needs an else branch');
      this.expect('}}');
      const otherwise = this.value();
      if (this.blockWord() !== 'end') throw this.error('expected "{{ end }}"');
      this.expect('}}');
      return { k: 'if', branches, otherwise, pos };
    }
  }

  private rangeBlock(pos: Pos): Node {
    this.keyword('range');
    this.ws();
    const first = this.identifier();
    if (!first) throw this.error('expected a loop variable');
    let index: string | null = null;
    let item = first;
    this.ws();
    if (this.peek() === ',') {
      this.advance();
      this.ws();
      index = first === '_' ? null : first;
      item = this.identifier();
      if (!item) throw this.error('expected a loop variable');
    }
    this.expect(':=');
    const over = this.expression();
    this.expect('}}');
    const body = this.value();
    if (this.blockWord() !== 'end') throw this.error('expected "{{ end }}"');
    this.expect('}}');
    return { k: 'range', index, item, over, body, pos };
  }

  // ----- expressions -----

  expression(): Node {
    return this.binary(0);
  }

  private static readonly LEVELS: ReadonlyArray<readonly BinaryOp[]> = [
    ['||'],
    ['&&'],
    ['==', '!=', '>=', '<=', '>', '<', 'in'],
    ['??'],
  ];

  private binary(level: number): Node {
    if (level >= Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      this.ws();
      const op = this.operatorAt(Parser.LEVELS[level]!);
      if (!op) return left;
      const pos = this.pos();
      this.advance(op.length);
      const right = this.binary(level + 1);
      left = { k: 'binary', op, left, right, pos };
      // Comparisons do not chain.
      if (level === 2) return left;
    }
  }

  private operatorAt(ops: readonly BinaryOp[]): BinaryOp | undefined {
    for (const op of ops) {
      if (!this.startsWith(op)) continue;
      if (op === 'in' && IDENT_CHAR.test(this.peek(2))) continue;
      // `>` / `<` must not be read from `>=` / `<=` (listed first), nor `=` from `==`.
      return op;
    }
    return undefined;
  }

  private unary(): Node {
    this.ws();
    const pos = this.pos();
    if (this.peekWord() === 'not' && !IDENT_CHAR.test(this.peek(3)) && this.peek(3) !== '(') {
      this.advance(3);
      return { k: 'not', operand: this.unary(), pos };
    }
    return this.postfix(this.primary());
  }

  private postfix(target: Node): Node {
    for (;;) {
      const pos = this.pos();
      if (this.startsWith('?.')) {
        this.advance(2);
        target = { k: 'field', target, key: this.fieldName(), optional: true, pos };
      } else if (this.startsWith('?[')) {
        this.advance(2);
        const key = this.expression();
        this.expect(']');
        target = { k: 'field', target, key, optional: true, pos };
      } else if (this.peek() === '.' && !/[0-9]/.test(this.peek(1))) {
        this.advance();
        target = { k: 'field', target, key: this.fieldName(), optional: false, pos };
      } else if (this.peek() === '[') {
        this.advance();
        const key = this.expression();
        this.expect(']');
        target = { k: 'field', target, key, optional: false, pos };
      } else {
        return target;
      }
    }
  }

  private fieldName(): Node {
    const pos = this.pos();
    const name = this.identifier();
    if (!name) throw this.error('expected a field name');
    return { k: 'literal', value: name, pos };
  }

  private primary(): Node {
    this.ws();
    const pos = this.pos();
    const c = this.peek();
    if (c === '(') {
      this.advance();
      const e = this.expression();
      this.expect(')');
      return e;
    }
    if (c === '"') return this.interpolatedString();
    if (c === "'") return { k: 'literal', value: this.singleQuoted(), pos };
    if (c === '-' || /[0-9]/.test(c)) return { k: 'literal', value: this.number(), pos };
    if (c === '[') return this.array(pos, () => this.expression());
    if (c === '{') return this.object(pos);
    if (IDENT_START.test(c)) {
      const word = this.identifier();
      if (word === 'true' || word === 'false') return { k: 'literal', value: word === 'true', pos };
      if (word === 'null') return { k: 'literal', value: null, pos };
      this.ws();
      if (this.peek() === '(' && !word.startsWith('$')) {
        this.advance();
        const arg = this.expression();
        this.expect(')');
        return { k: 'call', fn: word, arg, pos };
      }
      if (KEYWORDS.has(word)) throw this.error(`unexpected keyword "${word}"`, pos);
      return { k: 'var', name: word, pos };
    }
    throw this.error(this.atEnd() ? 'unexpected end of input' : `unexpected "${c}"`);
  }

  private singleQuoted(): string {
    const start = this.pos();
    this.advance();
    let s = '';
    for (;;) {
      if (this.atEnd()) throw this.error('unterminated string', start);
      const c = this.peek();
      if (c === "'") {
        this.advance();
        return s;
      }
      if (c === '\\') {
        s += this.escape();
        continue;
      }
      s += c;
      this.advance();
    }
  }
}

export type { Json };
