/**
 * The CMIS query language, as far as this repository answers it: a small tokenizer and a
 * recursive-descent parser that turn a statement into a plain description of the search. Nothing of the
 * statement ever reaches SQL; the search runs through the Content API's engine with bound values.
 *
 * Supported (CMIS 1.1 §2.1.14):
 *   SELECT * | <property>[, <property>…] FROM cmis:document | cmis:folder [[AS] <alias>]
 *   [WHERE <predicate> [AND <predicate>…]]
 * with the predicates CONTAINS('<text>') (at most one), IN_FOLDER('<folder id>') or IN_TREE('<folder
 * id>') (at most one of them), cmis:name = '<value>' and cmis:name LIKE '<pattern>', grouped with
 * parentheses if wished. Anything else (OR, NOT, other properties or operators, JOIN, ORDER BY, SCORE())
 * is refused with a message that names it, which the route answers as CMIS invalidArgument.
 */

export class CmisQueryError extends Error {}

export type CmisQueryType = "cmis:document" | "cmis:folder";

export interface NameCondition {
  op: "=" | "LIKE";
  /** For `=`: the value. For LIKE: a pattern in the Content API's syntax (`%` any run of characters). */
  value: string;
}

export interface CmisQuery {
  /** Property query names asked for; empty for `*`. */
  select: string[];
  from: CmisQueryType;
  /** CONTAINS text, in the full-text syntax (words, "phrases", -exclusions, OR). */
  contains?: string;
  /** IN_FOLDER (direct children) or IN_TREE (anywhere below). */
  folder?: { id: string; tree: boolean };
  names: NameCondition[];
}

// ---------------------------------------------------------------------------------------------------
// Tokens

type Token =
  | { kind: "word"; text: string; at: number }
  | { kind: "string"; raw: string; at: number }
  | { kind: "number"; text: string; at: number }
  | { kind: "punct"; text: string; at: number }
  | { kind: "end"; at: number };

/** Longest statement read: a query is a question, not a document. */
export const MAX_STATEMENT_LENGTH = 4000;

const WORD = /[A-Za-z_][\w:.]*/y;
const NUMBER = /[+-]?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const PUNCT = /<>|<=|>=|[(),*=<>]/y;

function tokenize(statement: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < statement.length) {
    const ch = statement[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === "'") {
      // A string literal: \' and \\ are escapes (CMIS), and so is '' (SQL); \% and \_ are kept for LIKE.
      let raw = "";
      let j = i + 1;
      for (;;) {
        if (j >= statement.length)
          throw new CmisQueryError(`Unterminated string starting at position ${i + 1}`);
        const c = statement[j] as string;
        if (c === "\\") {
          const next = statement[j + 1];
          if (next === undefined || !"'\\%_".includes(next)) {
            throw new CmisQueryError(
              `Invalid escape \\${next ?? ""} at position ${j + 1}: inside a string only \\', \\\\ (and in LIKE \\% and \\_) are escapes`,
            );
          }
          raw += `\\${next}`;
          j += 2;
          continue;
        }
        if (c === "'") {
          if (statement[j + 1] === "'") {
            raw += "\\'";
            j += 2;
            continue;
          }
          break;
        }
        raw += c;
        j++;
      }
      out.push({ kind: "string", raw, at: i });
      i = j + 1;
      continue;
    }
    const match = (re: RegExp) => {
      re.lastIndex = i;
      return re.exec(statement)?.[0];
    };
    const word = match(WORD);
    if (word) {
      out.push({ kind: "word", text: word, at: i });
      i += word.length;
      continue;
    }
    const number = match(NUMBER);
    if (number) {
      out.push({ kind: "number", text: number, at: i });
      i += number.length;
      continue;
    }
    const punct = match(PUNCT);
    if (punct) {
      out.push({ kind: "punct", text: punct, at: i });
      i += punct.length;
      continue;
    }
    throw new CmisQueryError(`Unexpected character "${ch}" at position ${i + 1}`);
  }
  out.push({ kind: "end", at: statement.length });
  return out;
}

/** A string literal's value outside LIKE: \' and \\ decoded; \% and \_ belong to LIKE only. */
function plainValue(raw: string, what: string): string {
  if (/\\[%_]/.test(raw)) {
    throw new CmisQueryError(
      `${what}: \\% and \\_ are escapes of LIKE patterns only; write % or _ as they are`,
    );
  }
  return raw.replace(/\\(['\\])/g, "$1");
}

/**
 * A CMIS LIKE pattern (`%` any run, `_` one character, `\%` `\_` literal) in the Content API's pattern
 * syntax, which has `%` and `*` as wildcards and everything else literal. What that syntax cannot say
 * is refused rather than searched for differently.
 */
function likePattern(raw: string): string {
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === "\\") {
      const next = raw[++i] as string;
      if (next === "%") {
        throw new CmisQueryError(
          "LIKE '\\%' (a literal percent sign) is not supported; match it with % instead",
        );
      }
      out += next; // \_ → a literal _, \' → ', \\ → \
      continue;
    }
    if (c === "_") {
      throw new CmisQueryError(
        "LIKE with _ (exactly one character) is not supported; use % (any run of characters), or \\_ for a literal underscore",
      );
    }
    if (c === "*") throw new CmisQueryError("LIKE cannot match a literal * here; use % around the rest");
    out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Parser

const KEYWORDS = new Set([
  "SELECT",
  "FROM",
  "WHERE",
  "AND",
  "OR",
  "NOT",
  "LIKE",
  "IN",
  "IS",
  "NULL",
  "ORDER",
  "BY",
  "AS",
  "JOIN",
  "INNER",
  "LEFT",
  "OUTER",
  "ON",
  "ANY",
  "ASC",
  "DESC",
  "TIMESTAMP",
  "TRUE",
  "FALSE",
  "SCORE",
  "CONTAINS",
  "IN_FOLDER",
  "IN_TREE",
]);

const TYPES: Record<string, CmisQueryType> = {
  "cmis:document": "cmis:document",
  "cmis:folder": "cmis:folder",
};

class Parser {
  private pos = 0;
  private alias: string | undefined;
  private readonly query: CmisQuery = { select: [], from: "cmis:document", names: [] };

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }
  private next(): Token {
    return this.tokens[this.pos++] as Token;
  }
  private isKeyword(word: string): boolean {
    const t = this.peek();
    return t.kind === "word" && t.text.toUpperCase() === word;
  }
  private describe(t: Token): string {
    if (t.kind === "end") return "the end of the statement";
    if (t.kind === "string") return `'${t.raw}' at position ${t.at + 1}`;
    return `"${t.text}" at position ${t.at + 1}`;
  }
  private expectKeyword(word: string): void {
    if (!this.isKeyword(word))
      throw new CmisQueryError(`Expected ${word}, found ${this.describe(this.peek())}`);
    this.pos++;
  }
  private expectPunct(p: string): void {
    const t = this.next();
    if (t.kind !== "punct" || t.text !== p)
      throw new CmisQueryError(`Expected "${p}", found ${this.describe(t)}`);
  }
  private string(what: string): string {
    const t = this.next();
    if (t.kind !== "string")
      throw new CmisQueryError(`${what} must be a quoted string, found ${this.describe(t)}`);
    return t.raw;
  }

  parse(): CmisQuery {
    this.expectKeyword("SELECT");
    const select = this.selectList();
    this.expectKeyword("FROM");
    const from = this.next();
    const type = from.kind === "word" ? TYPES[from.text.toLowerCase()] : undefined;
    if (!type) {
      throw new CmisQueryError(
        `FROM ${this.describe(from)}: this repository answers queries on cmis:document (assets) and cmis:folder (folders)`,
      );
    }
    this.query.from = type;
    if (this.isKeyword("AS")) this.pos++;
    const alias = this.peek();
    if (alias.kind === "word" && !KEYWORDS.has(alias.text.toUpperCase())) {
      this.alias = alias.text;
      this.pos++;
    }
    if (this.isKeyword("JOIN") || this.isKeyword("INNER") || this.isKeyword("LEFT")) {
      throw new CmisQueryError("JOIN is not supported (capabilityJoin none)");
    }
    this.query.select = select.map((s) => this.unqualified(s));
    if (this.isKeyword("WHERE")) {
      this.pos++;
      this.conjunction();
    }
    if (this.isKeyword("ORDER"))
      throw new CmisQueryError("ORDER BY is not supported (capabilityOrderBy none)");
    const t = this.peek();
    if (t.kind !== "end") throw new CmisQueryError(`Unexpected ${this.describe(t)}`);
    return this.query;
  }

  private selectList(): string[] {
    const first = this.peek();
    if (first.kind === "punct" && first.text === "*") {
      this.pos++;
      return [];
    }
    const names: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind !== "word" || KEYWORDS.has(t.text.toUpperCase())) {
        if (t.kind === "word" && t.text.toUpperCase() === "SCORE") {
          throw new CmisQueryError("SCORE() is not supported in the select list");
        }
        throw new CmisQueryError(`Expected a property name or * after SELECT, found ${this.describe(t)}`);
      }
      names.push(t.text);
      const sep = this.peek();
      if (sep.kind !== "punct" || sep.text !== ",") return names;
      this.pos++;
    }
  }

  /** `D.cmis:name` → `cmis:name` when D is the alias; another qualifier is refused. */
  private unqualified(name: string): string {
    const dot = name.indexOf(".");
    if (dot < 0) return name;
    const qualifier = name.slice(0, dot);
    if (this.alias === undefined || qualifier !== this.alias) {
      throw new CmisQueryError(`"${name}": the qualifier ${qualifier} is not the alias of the FROM type`);
    }
    return name.slice(dot + 1);
  }

  private conjunction(): void {
    this.predicate();
    for (;;) {
      if (this.isKeyword("AND")) {
        this.pos++;
        this.predicate();
        continue;
      }
      if (this.isKeyword("OR"))
        throw new CmisQueryError("OR is not supported: predicates can only be joined with AND");
      return;
    }
  }

  private predicate(): void {
    const t = this.peek();
    if (t.kind === "punct" && t.text === "(") {
      this.pos++;
      this.conjunction();
      this.expectPunct(")");
      return;
    }
    if (t.kind !== "word") throw new CmisQueryError(`Expected a predicate, found ${this.describe(t)}`);
    const upper = t.text.toUpperCase();
    if (upper === "NOT") throw new CmisQueryError("NOT is not supported");
    if (upper === "CONTAINS") {
      this.contains();
      return;
    }
    if (upper === "IN_FOLDER" || upper === "IN_TREE") {
      this.inFolder(upper === "IN_TREE");
      return;
    }
    if (upper === "ANY") throw new CmisQueryError("ANY (multi-valued comparisons) is not supported");
    if (KEYWORDS.has(upper)) throw new CmisQueryError(`Expected a predicate, found ${this.describe(t)}`);
    this.pos++;
    this.comparison(this.unqualified(t.text));
  }

  /** Function arguments: an optional qualifier (the alias) then one string. */
  private functionArgument(name: string): string {
    this.expectPunct("(");
    const first = this.peek();
    if (first.kind === "word") {
      if (first.text !== this.alias) {
        throw new CmisQueryError(`${name}: the qualifier ${first.text} is not the alias of the FROM type`);
      }
      this.pos++;
      this.expectPunct(",");
    }
    const raw = this.string(`${name}'s argument`);
    this.expectPunct(")");
    return raw;
  }

  private contains(): void {
    this.pos++;
    if (this.query.contains !== undefined)
      throw new CmisQueryError("CONTAINS may appear only once in a query");
    this.query.contains = plainValue(this.functionArgument("CONTAINS"), "CONTAINS");
  }

  private inFolder(tree: boolean): void {
    const name = tree ? "IN_TREE" : "IN_FOLDER";
    this.pos++;
    if (this.query.folder) {
      throw new CmisQueryError(`${name}: only one IN_FOLDER or IN_TREE predicate is supported in a query`);
    }
    this.query.folder = { id: plainValue(this.functionArgument(name), name), tree };
  }

  private comparison(property: string): void {
    if (property !== "cmis:name") {
      throw new CmisQueryError(
        `Property ${property} cannot be compared in WHERE: only cmis:name (= and LIKE) is queryable, with CONTAINS, IN_FOLDER and IN_TREE`,
      );
    }
    const op = this.next();
    if (op.kind === "punct" && op.text === "=") {
      const value = plainValue(this.string("cmis:name ="), "cmis:name =");
      if (/[%*]/.test(value)) {
        throw new CmisQueryError(
          `cmis:name = '${value}': % and * cannot be matched literally here; use LIKE for patterns`,
        );
      }
      this.query.names.push({ op: "=", value });
      return;
    }
    if (op.kind === "word" && op.text.toUpperCase() === "LIKE") {
      this.query.names.push({ op: "LIKE", value: likePattern(this.string("cmis:name LIKE")) });
      return;
    }
    if (op.kind === "word" && op.text.toUpperCase() === "NOT")
      throw new CmisQueryError("NOT LIKE is not supported");
    throw new CmisQueryError(
      `cmis:name ${op.kind === "end" ? "" : op.kind === "string" ? `'${op.raw}'` : op.text}: only = and LIKE are supported`,
    );
  }
}

/** Parses a statement, or throws CmisQueryError saying what is wrong or not supported. */
export function parseCmisQuery(statement: string): CmisQuery {
  if (statement.length > MAX_STATEMENT_LENGTH) {
    throw new CmisQueryError(`The statement is longer than ${MAX_STATEMENT_LENGTH} characters`);
  }
  if (statement.trim() === "") throw new CmisQueryError("The query statement is empty");
  return new Parser(tokenize(statement)).parse();
}
