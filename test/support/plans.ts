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
