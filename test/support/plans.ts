import type { Queryable } from '../../src/db/db';

/** One node of an EXPLAIN (FORMAT JSON) plan: 'Node Type', 'Relation Name', 'Actual Rows' and so on. */
export type PlanNode = Record<string, unknown>;

/**
 * Every node of the plan Postgres (or PGlite) makes for `statement`, depth first. With
 * `analyze` the statement runs, and the nodes carry their actual row counts.
 */
export async function planNodes(db: Queryable, statement: string, params: unknown[], options: { analyze?: boolean } = {}): Promise<PlanNode[]> {
  const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (${options.analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${statement}`, params);
  // The Postgres driver parses the json column; PGlite hands back its text.
  const raw = row!['QUERY PLAN'];
  const [{ Plan }] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  const flatten = (node: PlanNode): PlanNode[] => [node, ...((node.Plans as PlanNode[] | undefined) ?? []).flatMap(flatten)];
  return flatten(Plan);
}

/**
 * Whether a plan node's relation is `table` or one of its day partitions (sql/0119:
 * `<table>_legacy`, `<table>_default`, `<table>_dYYYYMMDD`): a scan names the partition it reads.
 */
export function readsTable(node: PlanNode, table: string): boolean {
  const name = String(node['Relation Name']);
  return name === table || new RegExp(`^${table}_(legacy|default|d\\d{8})$`).test(name);
}

/** The index a partition's index belongs to (its parent's, as the migrations name it), or the index itself. */
export async function parentIndexName(db: Queryable, index: string): Promise<string> {
  const [row] = await db.query<{ name: string }>(
    `SELECT coalesce((SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid), c.relname) AS name
       FROM pg_class c WHERE c.relname = $1`,
    [index],
  );
  return row?.name ?? index;
}
