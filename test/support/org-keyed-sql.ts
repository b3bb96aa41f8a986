/**
 * A static check of the SQL in the source for what sharding by organization needs (docs/scaling.md,
 * "Sharding by organization"): every statement on a table that would be distributed by `org_id`
 * names its organization, and no statement joins two such tables without equating their org_id.
 * Pragmatic, not a SQL parser: it reads string and template literals that start with a statement
 * keyword, and looks at table references, `org_id` comparisons and INSERT column lists. Deterministic:
 * the same source gives the same findings in the same order.
 */

/**
 * Tables that would be Citus distributed tables on org_id: the append-only and per-device tables
 * that grow with traffic, and the per-organization tables written alongside them.
 */
export const DISTRIBUTED_TABLES = [
  'clicks', 'impressions', 'events', 'installs', 'conversions', 'click_beacons', 'click_tombstones',
  'ara_sources', 'ara_reports', 'skan_postbacks', 'subscriptions', 'store_notifications', 'reengagements',
  'postback_deliveries', 'realtime_clicks', 'retained_totals', 'retained_cohorts',
] as const;

const DISTRIBUTED = new Set<string>(DISTRIBUTED_TABLES);
const STATEMENT_START = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|COPY)\b/;
const PLACEHOLDER = ' __expr__ ';

export interface SqlStatement {
  file: string;
  /** 1-based line of the literal's opening quote. */
  line: number;
  /** The statement with interpolations inlined (their nested literals) or replaced by a placeholder, whitespace collapsed. */
  text: string;
}

export interface Finding {
  file: string;
  line: number;
  text: string;
  /**
   * `unkeyed`: a distributed table not compared on org_id; `cross_org_join`: two distributed tables
   * whose org_id are never equated; `dynamic_table`: a table named by an interpolation, which the
   * check cannot see (each must be reviewed and allow-listed).
   */
  kind: 'unkeyed' | 'cross_org_join' | 'dynamic_table';
  tables: string[];
}

/** Reads a literal opened at `start` (quote at source[start]); returns its text and the index past it. */
function readLiteral(source: string, start: number, constants: ReadonlyMap<string, string>): { text: string; end: number } {
  const quote = source[start]!;
  let text = '';
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\\') { text += source.slice(i, i + 2); i += 2; continue; }
    if (ch === quote) return { text, end: i + 1 };
    if (quote === '`' && ch === '$' && source[i + 1] === '{') {
      const expression = readExpression(source, i + 2, constants);
      const known = constants.get(expression.code.trim());
      // A constant of the same file is inlined; otherwise the fragments inside, and a placeholder for the rest.
      text += known !== undefined ? ` ${known} ` : ` ${expression.literals.join(' ')}${PLACEHOLDER}`;
      i = expression.end;
      continue;
    }
    if (quote !== '`' && ch === '\n') return { text, end: i };
    text += ch;
    i += 1;
  }
  return { text, end: i };
}

/** Reads code up to the `}` closing an interpolation, collecting the literals inside it (composed SQL fragments). */
function readExpression(source: string, start: number, constants: ReadonlyMap<string, string>): { literals: string[]; code: string; end: number } {
  const literals: string[] = [];
  let depth = 0;
  let i = start;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\'' || ch === '"' || ch === '`') {
      const literal = readLiteral(source, i, constants);
      literals.push(literal.text);
      i = literal.end;
      continue;
    }
    if (ch === '{') depth += 1;
    if (ch === '}') {
      if (depth === 0) return { literals, code: source.slice(start, i), end: i + 1 };
      depth -= 1;
    }
    i += 1;
  }
  return { literals, code: source.slice(start, i), end: i };
}

/** `const NAME = '...'` (or a template) in the file, in order, each with earlier constants inlined. */
function fileConstants(source: string): Map<string, string> {
  const constants = new Map<string, string>();
  for (const match of source.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::\s*string\s*)?=\s*(?=['"`])/g)) {
    const literal = readLiteral(source, match.index! + match[0].length, constants);
    constants.set(match[1]!, literal.text);
  }
  return constants;
}

/** Every literal in a TypeScript source that reads as a SQL statement. Comments are skipped. */
export function extractStatements(file: string, source: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  const constants = fileConstants(source);
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '/' && source[i + 1] === '/') { const eol = source.indexOf('\n', i); i = eol < 0 ? source.length : eol; continue; }
    if (ch === '/' && source[i + 1] === '*') { const close = source.indexOf('*/', i + 2); i = close < 0 ? source.length : close + 2; continue; }
    if (ch === '\'' || ch === '"' || ch === '`') {
      const literal = readLiteral(source, i, constants);
      if (STATEMENT_START.test(literal.text)) {
        const line = source.slice(0, i).split('\n').length;
        statements.push({ file, line, text: literal.text.replace(/\s+/g, ' ').trim() });
      }
      i = literal.end;
      continue;
    }
    i += 1;
  }
  return statements;
}

const RESERVED = new Set(['where', 'on', 'join', 'left', 'right', 'inner', 'full', 'cross', 'using', 'set', 'group', 'order',
  'limit', 'returning', 'select', 'union', 'for', 'as', 'values', 'default', 'partition', 'natural', 'lateral', 'having',
  'window', 'offset', 'except', 'intersect', 'with', 'and', 'or', 'not', 'only', 'when', 'then', 'do', 'in']);

interface TableRef { table: string; alias: string }

/** Distributed tables the statement reads or writes, each with the name its columns are qualified by. */
function distributedRefs(sql: string): TableRef[] {
  const refs: TableRef[] = [];
  const pattern = /\b(FROM|JOIN|INTO|UPDATE|USING)\s+(?:ONLY\s+)?([a-z_][a-z0-9_]*)(?:\s+(?:AS\s+)?([a-z_][a-z0-9_]*))?/gi;
  for (const match of sql.matchAll(pattern)) {
    const table = match[2]!.toLowerCase();
    if (!DISTRIBUTED.has(table)) continue;
    const alias = match[3] && !RESERVED.has(match[3].toLowerCase()) ? match[3].toLowerCase() : table;
    refs.push({ table, alias });
  }
  return refs;
}

/** Union-find over the terms org_id is equated with: `a.org_id`, a bare `org_id`, `$1`, a subquery. */
class Classes {
  private readonly parent = new Map<string, string>();
  find(term: string): string {
    const up = this.parent.get(term);
    if (up === undefined || up === term) { this.parent.set(term, term); return term; }
    const root = this.find(up);
    this.parent.set(term, root);
    return root;
  }
  union(a: string, b: string): void { this.parent.set(this.find(a), this.find(b)); }
  has(term: string): boolean { return this.parent.has(term); }
}

const ORG_TERM = String.raw`(?:([a-z_][a-z0-9_]*)\.)?org_id\b`;
const OPERAND = String.raw`(?:([a-z_][a-z0-9_]*)\.org_id\b|(org_id)\b|(\$\d+)|(__expr__)|(\())`;

/** Records every `x.org_id = y`, `org_id IN (...)`, `org_id = ANY(...)` comparison as classes of equal terms. */
function orgComparisons(sql: string): Classes {
  const classes = new Classes();
  const term = (alias: string | undefined) => (alias ? `${alias.toLowerCase()}.org_id` : 'org_id');
  let subquery = 0;
  const left = new RegExp(`${ORG_TERM}\\s*(?:=|\\bIN\\b|\\bIS NOT DISTINCT FROM\\b)\\s*(?:ANY\\s*)?${OPERAND}`, 'gi');
  for (const match of sql.matchAll(left)) {
    const [, alias, rightAlias, bare, parameter, expression, open] = match;
    const right = rightAlias ? `${rightAlias.toLowerCase()}.org_id` : bare ? 'org_id' : parameter ?? expression ?? (open ? `subquery${subquery++}` : 'value');
    classes.union(term(alias), right);
  }
  // `$1 = org_id`, written the other way round.
  for (const match of sql.matchAll(new RegExp(String.raw`(\$\d+)\s*=\s*${ORG_TERM}`, 'gi'))) classes.union(match[1]!, term(match[2]));
  return classes;
}

/** Whether an INSERT into the table lists org_id among its columns (or copies rows that carry it). */
function insertCarriesOrg(sql: string, table: string): boolean {
  const columns = new RegExp(String.raw`\bINTO\s+${table}(?:\s+AS\s+[a-z_]+)?\s*\(([^)]*)\)`, 'i').exec(sql);
  return columns !== null && /\borg_id\b/i.test(columns[1]!);
}

/** The findings for one statement: empty when every distributed table in it is keyed and joined by org_id. */
export function checkStatement(statement: SqlStatement): Finding[] {
  const sql = statement.text;
  const refs = distributedRefs(sql);
  const dynamic = /\b(FROM|JOIN|INTO|UPDATE)\s+(?:ONLY\s+)?__expr__/i.test(sql) ? [{ ...statement, kind: 'dynamic_table' as const, tables: [] }] : [];
  if (refs.length === 0) return dynamic;
  const classes = orgComparisons(sql);
  const aliases = new Set(refs.map((ref) => ref.alias));
  const keyOf = (ref: TableRef): string | null => {
    if (classes.has(`${ref.alias}.org_id`)) return classes.find(`${ref.alias}.org_id`);
    // A bare org_id belongs to the table when no other distributed table could own it.
    if (classes.has('org_id') && (aliases.size === 1 || ref.alias === ref.table)) return classes.find('org_id');
    if (/^\s*(INSERT|COPY)\b/i.test(sql) && insertCarriesOrg(sql, ref.table)) return `insert:${ref.table}`;
    if (new RegExp(String.raw`\bINTO\s+${ref.table}\b`, 'i').test(sql) && insertCarriesOrg(sql, ref.table)) return `insert:${ref.table}`;
    return null;
  };
  const findings: Finding[] = [...dynamic];
  const keys = refs.map(keyOf);
  const unkeyed = refs.filter((_, index) => keys[index] === null).map((ref) => ref.table);
  if (unkeyed.length > 0) findings.push({ ...statement, kind: 'unkeyed', tables: [...new Set(unkeyed)] });
  // Rows of two distributed tables meet only when their org_id are one class (equated, or both equal to one parameter).
  const read = refs.filter((_, index) => keys[index] !== null && !keys[index]!.startsWith('insert:'));
  const roots = new Set(read.map((ref) => keyOf(ref)));
  if (read.length > 1 && roots.size > 1) findings.push({ ...statement, kind: 'cross_org_join', tables: [...new Set(read.map((ref) => ref.table))] });
  return findings;
}

/** An accepted unkeyed statement: the file, a piece of its normalised text, and why it may stay unkeyed. */
export interface Allowed {
  file: string;
  contains: string;
  kind: Finding['kind'];
  reason: string;
}

export function isAllowed(finding: Finding, allowList: readonly Allowed[]): Allowed | undefined {
  return allowList.find((entry) => entry.file === finding.file && entry.kind === finding.kind && finding.text.includes(entry.contains));
}
