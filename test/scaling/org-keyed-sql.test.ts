import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { join } from 'node:path';
import { CLICK_COLUMNS, IMPRESSION_COLUMNS } from '../../src/tracking/tracking.model';
import { checkStatement, DISTRIBUTED_TABLES, extractStatements, isAllowed, type Allowed, type Finding } from '../support/org-keyed-sql';

/*
 * What sharding by organization (Citus, distributed tables on org_id) needs of the SQL: every
 * statement on a distributed table names its organization, and no statement joins two of them
 * without equating their org_id. docs/scaling.md, "Sharding by organization", has the plan.
 * A statement that legitimately is not keyed is listed here with its reason; "to fix" marks
 * statements that would have to change before a sharded deployment.
 */

/** Files whose SQL runs on the per-node DuckDB mirror, never on Postgres: not sharded by Citus. */
const DUCKDB_ONLY = [
  'src/analytics/breakdown/breakdown-sql.ts', 'src/analytics/cohorts/cohort-sql.ts', 'src/analytics/link-clicks.repo.ts',
  'src/analytics/link-stats/link-stats.repo.ts', 'src/analytics/mirror/mirror-cursor.ts', 'src/analytics/mirror/mirror-read.ts',
  'src/analytics/reporting/fx-sql.ts', 'src/analytics/summaries.ts', 'src/dashboard/export/export.repo.ts',
  'src/protect/export/export.repo.ts', 'src/protect/sync/blocklist.repo.ts', 'src/protect/sync/google-ads/ip-criteria.ts',
];

/** Paths are the repository's, wherever the test runs from. */
const ROOT = join(import.meta.dir, '../..');
const read = (file: string) => Bun.file(join(ROOT, file)).text();

/** Entries of one file and kind that share a reason: each `contains` names one statement. */
const allow = (file: string, kind: Allowed['kind'], reason: string, ...contains: string[]): Allowed[] =>
  contains.map((piece) => ({ file, kind, contains: piece, reason }));

const ALLOWED: readonly Allowed[] = [
  ...allow('src/analytics/mirror/mirror-schema.ts', 'dynamic_table',
    "the mirror's copy by (txid, seq) range: every organization's new rows, per node; under Citus it runs per shard",
    'SELECT t._txid::text AS mirror_cursor_txid , t._seq::text AS mirror_cu',
  ),
  ...allow('src/analytics/mirror/mirror-schema.ts', 'dynamic_table',
    "the mirror's merge of a staged batch into the node's DuckDB table: DuckDB SQL, never run on Postgres",
    'INSERT OR REPLACE INTO __expr__ ( __expr__ ) SELECT , __expr__ FROM te',
  ),
  ...allow('src/clicks/clicks.repo.ts', 'unkeyed',
    'keyed: the composed conditions start with org_id = $1, which the checker cannot see through conditions.join',
    'SELECT id, created_at, created_at __expr__ AS page_at, gclid, gbraid, ',
  ),
  ...allow('src/conversions/conversions.repo.ts', 'unkeyed',
    'the late matcher sweeps recent unmatched conversions of every organization (a fan-out by design, every few seconds); its click read is keyed by u.org_id, co-located. To fix (small): the outer self-join c.id = m.id should also equate c.org_id so it stays co-located',
    'UPDATE conversions c SET matched = true, campaign_id = m.campaign_id, ',
    'UPDATE conversions c SET matched = true, click_id = m.click_id, campai',
  ),
  ...allow('src/db/db.ts', 'dynamic_table',
    "the Db seam's COPY and multi-row INSERT: the caller names the table and columns (the click, impression and event column lists are asserted to carry org_id below)",
    'COPY __expr__ ( , __expr__ ) FROM __expr__',
    'INSERT INTO __expr__ ( , __expr__ ) VALUES , __expr__ __expr__',
  ),
  ...allow('src/http/pagination.ts', 'dynamic_table',
    "the keyset anchor: the table comes from the caller's keyset and is keyed by its org column (a.${keyset.org} = $n)",
    'SELECT a. __expr__ , __expr__ FROM __expr__ a WHERE a. __expr__ = __ex',
  ),
  ...allow('src/partitions/partitions.repo.ts', 'dynamic_table',
    'day-partition upkeep (move out of the default partition, drop, count, the end of a retention batch): whole days of every organization, under the migration lock',
    'WITH moved AS (DELETE FROM __expr__ _default WHERE __expr__ >= $1 AND ',
    'WITH gone AS (DELETE FROM __expr__ WHERE __expr__ >= $1 AND __expr__ <',
    'SELECT __expr__ AS next FROM __expr__ WHERE __expr__ >= $1 AND __expr__ ',
    'SELECT count(*)::int AS n FROM __expr__',
  ),
  ...allow('src/partitions/retained-totals.repo.ts', 'dynamic_table',
    'the retention pass sums a whole day partition, grouped by org_id, before it is dropped',
    'INSERT INTO retained_totals (id, org_id, source, campaign_id, bucket, ',
  ),
  ...allow('src/postbacks/postbacks.repo.ts', 'unkeyed',
    'the delivery worker claims due deliveries of every organization (FOR UPDATE SKIP LOCKED over the due index): a fan-out under Citus, or one claim per shard; the conversions it reads are joined on org_id, and each outcome is then recorded by (org_id, id)',
    'WITH claimed AS ( UPDATE postback_deliveries SET attempts = attempts +',
  ),
  ...allow('src/privacy-sandbox/privacy-sandbox.repo.ts', 'unkeyed',
    'to fix: an attribution report names only its source_event_id; the organization is looked up from ara_sources by it (a fan-out under Citus, unless the report endpoint carries the organization)',
    'INSERT INTO ara_reports (id, kind, debug_path, org_id, source_event_id',
  ),
  ...allow('src/protect/beacon/beacon.repo.ts', 'unkeyed',
    "the beacon's answer path finds a click by its globally unique id before the organization is known; the pending-beacon pass reads beacons whose click was not yet stored (org_id still NULL) and sweeps old ones",
    'SELECT id, org_id, ip, country, is_bot, risk_reasons FROM clicks WHERE',
    'SELECT b.click_id, b.fingerprint, b.screen, b.timezone, b.languages, b',
    'DELETE FROM click_beacons WHERE org_id IS NULL AND first_at < $1::time',
  ),
  ...allow('src/sdk/installs.repo.ts', 'unkeyed',
    'to fix: the SDK path keys installs by app_id (globally unique, one organization) or by install id; under Citus add org_id, which the SDK key already names',
    'SELECT id, attribution_method, campaign_id, click_id, deep_link_path, ',
    'UPDATE installs SET attribution_method = $3, campaign_id = $4, click_i',
    'UPDATE installs SET push_token = $3, uninstalled_at = NULL, updated_at',
    'UPDATE installs SET uninstalled_at = NULL, updated_at = now() WHERE id',
  ),
  ...allow('src/sdk/sdk.repo.ts', 'unkeyed',
    'to fix, except the INSERT (its column list is EVENT_COLUMNS, asserted below to carry org_id): subscription and event lookups by app_id on the SDK path; the SDK key names the organization',
    'INSERT INTO events ( , __expr__ ) VALUES ($1, $2, $3, $4, $5, $6, $7, ',
    'SELECT id, install_id FROM subscriptions WHERE app_id = $1 AND store =',
    'UPDATE subscriptions SET install_id = COALESCE(install_id, $2), device',
    'UPDATE events SET install_id = COALESCE(install_id, $3), device_id_has',
  ),
  ...allow('src/subscriptions/subscriptions.repo.ts', 'unkeyed',
    "to fix: store notifications name an app (by bundle or package), not an organization; keyed by app_id, which belongs to one organization, so they route once the app's org_id is added",
    'SELECT DISTINCT app_id FROM subscriptions WHERE __expr__ AND app_id IN',
    'SELECT id, org_id, app_id, install_id, device_id_hash, product_id, sta',
    'UPDATE subscriptions SET status = $2, is_trial = $3, expires_at = $4::',
    'UPDATE store_notifications SET subscription_id = $4, outcome = $5 WHER',
    'SELECT subscription_id FROM store_notifications WHERE app_id = $1 AND ',
  ),
  ...allow('src/tracking/counts/click-counts.repo.ts', 'unkeyed',
    "the realtime counter's retention sweep: drops old minutes of every organization",
    'DELETE FROM realtime_clicks WHERE minute < $1::timestamptz',
  ),
  ...allow('src/tracking/pipeline/click-tombstones.ts', 'unkeyed',
    'every node follows the erasure tombstones of every organization by a global sequence; a reference table under Citus',
    'SELECT seq, org_id, id_prefix, id_hash FROM click_tombstones WHERE seq',
  ),
  ...allow('src/tracking/pipeline/records.repo.ts', 'dynamic_table',
    "the batcher's recordset INSERT into clicks or impressions; the column lists carry org_id (asserted below)",
    'INSERT INTO __expr__ ( , __expr__ ) SELECT r. __expr__ , __expr__ FROM',
  ),
  ...allow('src/uninstalls/uninstalls.repo.ts', 'unkeyed',
    'the uninstall checker sweeps due push tokens of every organization (one queue over the due index, under the checker lock): a fan-out, or one sweep per shard under Citus; what it then writes is keyed by (org_id, id)',
    'SELECT i.id, i.org_id, i.push_token, a.bundle_id, i.uninstall_checked_',
  ),
];

async function sourceFindings(): Promise<Finding[]> {
  const files = [...new Glob('src/**/*.ts').scanSync(ROOT)].sort();
  const findings: Finding[] = [];
  for (const file of files) {
    if (DUCKDB_ONLY.includes(file)) continue;
    const source = await read(file);
    for (const statement of extractStatements(file, source)) findings.push(...checkStatement(statement));
  }
  return findings;
}

const describeFinding = (finding: Finding) => `${finding.kind} ${finding.file}:${finding.line} [${finding.tables.join(', ')}] ${finding.text.slice(0, 160)}`;

describe('SQL keyed by organization', () => {
  test('every statement on a distributed table is keyed by org_id, or allow-listed with its reason', async () => {
    const findings = await sourceFindings();
    expect(findings.length).toBeGreaterThan(0);
    const unexplained = findings.filter((finding) => !isAllowed(finding, ALLOWED)).map(describeFinding);
    expect(unexplained).toEqual([]);
  });

  test('every allow-list entry still matches a statement (no stale reasons)', async () => {
    const findings = await sourceFindings();
    const stale = ALLOWED.filter((entry) => !findings.some((finding) => isAllowed(finding, [entry])));
    expect(stale).toEqual([]);
  });

  test('the DuckDB-only files do not use the Postgres seam', async () => {
    for (const file of DUCKDB_ONLY) {
      const source = await read(file);
      expect({ file, usesDb: /db\/db'/.test(source) }).toEqual({ file, usesDb: false });
    }
  });

  test('the column lists the batcher and the event INSERT write carry org_id', async () => {
    expect(CLICK_COLUMNS).toContain('org_id');
    expect(IMPRESSION_COLUMNS).toContain('org_id');
    const sdkRepo = await read('src/sdk/sdk.repo.ts');
    expect(/const EVENT_COLUMNS = \[[^\]]*'org_id'/.test(sdkRepo)).toBe(true);
  });

  test('the scan reads the repositories (a sample of known statements is found)', async () => {
    const source = await read('src/tracking/pipeline/records.repo.ts');
    const texts = extractStatements('records', source).map((statement) => statement.text);
    expect(texts.some((text) => text.startsWith('INSERT INTO'))).toBe(true);
    expect(DISTRIBUTED_TABLES).toContain('clicks');
  });
});

describe('the checker', () => {
  const check = (text: string) => checkStatement({ file: 'made-up.ts', line: 1, text }).map((finding) => [finding.kind, finding.tables]);

  test('accepts statements keyed by org_id', () => {
    expect(check('SELECT id FROM clicks WHERE org_id = $1 AND id = $2')).toEqual([]);
    expect(check('SELECT c.id FROM clicks c WHERE c.org_id = $1')).toEqual([]);
    expect(check('UPDATE installs SET push_token = $3 WHERE org_id = $1 AND id = $2')).toEqual([]);
    expect(check('DELETE FROM events WHERE $1 = org_id')).toEqual([]);
    expect(check('INSERT INTO conversions (id, org_id, click_id) VALUES ($1, $2, $3)')).toEqual([]);
    expect(check('SELECT id FROM links WHERE slug = $1')).toEqual([]);
  });

  test('finds a new unkeyed statement', () => {
    expect(check('SELECT id FROM clicks WHERE gclid = $1')).toEqual([['unkeyed', ['clicks']]]);
    expect(check('UPDATE installs SET push_token = $2 WHERE id = $1')).toEqual([['unkeyed', ['installs']]]);
    expect(check('INSERT INTO events (id, name) VALUES ($1, $2)')).toEqual([['unkeyed', ['events']]]);
    expect(check('SELECT org_id FROM clicks WHERE id = $1')).toEqual([['unkeyed', ['clicks']]]);
  });

  test('accepts a join that equates org_id, or keys both sides by one parameter', () => {
    expect(check('SELECT * FROM conversions v JOIN clicks k ON k.id = v.click_id AND k.org_id = v.org_id WHERE v.org_id = $1')).toEqual([]);
    expect(check('SELECT * FROM conversions v JOIN clicks k ON k.id = v.click_id WHERE v.org_id = $1 AND k.org_id = $1')).toEqual([]);
  });

  test('finds a cross-organization join', () => {
    expect(check('SELECT * FROM conversions v JOIN clicks k ON k.id = v.click_id WHERE v.org_id = $1 AND k.org_id = $2'))
      .toEqual([['cross_org_join', ['conversions', 'clicks']]]);
    expect(check('SELECT * FROM conversions v JOIN clicks k ON k.id = v.click_id WHERE v.org_id = $1'))
      .toEqual([['unkeyed', ['clicks']]]);
  });

  test('flags a table it cannot see', () => {
    const source = 'const t = pick();\nawait db.query(`SELECT id FROM ${t} WHERE id = $1`, [id]);';
    const [statement] = extractStatements('made-up.ts', source);
    expect(statement).toEqual({ file: 'made-up.ts', line: 2, text: 'SELECT id FROM __expr__ WHERE id = $1' });
    expect(check(statement!.text)).toEqual([['dynamic_table', []]]);
  });

  test('reads literals, inlines same-file constants and fragments, skips comments', () => {
    const source = [
      "const OWNED = 'org_id = $1';",
      '// SELECT id FROM clicks WHERE id = $1',
      'q(`SELECT id FROM clicks WHERE ${OWNED} AND id = $2`);',
      "q('DELETE FROM events WHERE id = $1');",
      'q(`UPDATE installs SET x = 1 WHERE ${cond ? \'org_id = $1\' : \'org_id = $2\'}`);',
    ].join('\n');
    const statements = extractStatements('made-up.ts', source);
    expect(statements.map((statement) => statement.line)).toEqual([3, 4, 5]);
    expect(statements.map((statement) => checkStatement(statement).map((finding) => finding.kind))).toEqual([[], ['unkeyed'], []]);
  });

  test('an unkeyed statement is refused unless the allow-list names it', () => {
    const [finding] = checkStatement({ file: 'src/new.repo.ts', line: 1, text: 'SELECT id FROM impressions WHERE id = $1' });
    expect(isAllowed(finding!, ALLOWED)).toBeUndefined();
    expect(isAllowed(finding!, [{ file: 'src/new.repo.ts', kind: 'unkeyed', contains: 'FROM impressions', reason: 'made up' }])).toBeDefined();
  });
});
