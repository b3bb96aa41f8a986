import { copyText } from '../../db/copy-text';
import type { Db } from '../../db/db';
import { errorCode } from '../../db/errors';
import type { ClickRecord } from '../click.model';
import { clickTombstonesOf } from './click-tombstones';
import { CLICK_COLUMNS, IMPRESSION_COLUMNS, type ImpressionRecord } from '../tracking.model';

/** SQL of the batcher: clicks and impressions in, idempotent on their ids. */

/**
 * Column types of the clicks and impressions tables, for the recordset the batcher inserts.
 * Typed by the column lists, so a column added to a record must be given its type here too.
 */
const CLICK_COLUMN_TYPES: Record<(typeof CLICK_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', link_id: 'text', campaign_id: 'text', created_at: 'timestamptz', gclid: 'text',
  gbraid: 'text', wbraid: 'text', campaign_ext_id: 'text', ad_group_ext_id: 'text', creative_id: 'text',
  keyword: 'text', match_type: 'text', network: 'text', device: 'text', placement: 'text', target_id: 'text',
  loc_physical_ms: 'text', loc_interest_ms: 'text', ad_position: 'text', next_hop_url: 'text',
  transparent_param_present: 'boolean', force_transparent: 'boolean', is_bot: 'boolean', latency_ms: 'integer',
  ip: 'text', ip_day_hash: 'text', household_hash: 'text', user_agent: 'text', referer: 'text', country: 'text',
  os_family: 'text', os_version: 'text', device_type: 'text', drop_reason: 'text', params: 'jsonb',
  route: 'jsonb', risk_score: 'integer', risk_reasons: 'jsonb', region: 'text',
};
const IMPRESSION_COLUMN_TYPES: Record<(typeof IMPRESSION_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', campaign_id: 'text', app_id: 'text', creative_id: 'text', placement: 'text',
  partner: 'text', ip_day_hash: 'text', household_hash: 'text', user_agent: 'text', os: 'text', device_type: 'text',
  country: 'text', source: 'text', created_at: 'timestamptz',
};

/**
 * The INSERT that skips records already stored, for batches COPY cannot take (copyOrSkipStored):
 * any number of records as a single JSON array parameter, so the statement text never changes
 * (prepared once per connection), and Postgres unpacks them with json_to_recordset.
 */
function recordsetInsert(table: string, types: Record<string, string>): string {
  const columns = Object.keys(types);
  const shape = columns.map((column) => `${column} ${types[column]}`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')})
    SELECT ${columns.map((column) => `r.${column}`).join(', ')} FROM json_to_recordset($1::json) AS r(${shape})
    ON CONFLICT (id) DO NOTHING`;
}

const INSERT_CLICKS = recordsetInsert('clicks', CLICK_COLUMN_TYPES);
const INSERT_IMPRESSIONS = recordsetInsert('impressions', IMPRESSION_COLUMN_TYPES);

/** Stores enriched clicks, less any an erasure named; idempotent on the click id (see copyOrSkipStored). */
export async function insertClicks(db: Db, clicks: readonly ClickRecord[]): Promise<void> {
  if (clicks.length === 0) return;
  // Awaited only when it must be (the first read): otherwise the COPY starts in this turn.
  const answer = clickTombstonesOf(db).keep(clicks);
  const kept = answer instanceof Promise ? await answer : answer;
  if (kept.length > 0) await copyOrSkipStored(db, 'clicks', CLICK_COLUMNS, INSERT_CLICKS, kept);
}

/** Stores impressions; idempotent on the impression id (see copyOrSkipStored). */
export async function insertImpressions(db: Db, impressions: readonly ImpressionRecord[]): Promise<void> {
  if (impressions.length > 0) await copyOrSkipStored(db, 'impressions', IMPRESSION_COLUMNS, INSERT_IMPRESSIONS, impressions);
}

const UNIQUE_VIOLATION = '23505';

/**
 * The records go in by COPY, cheaper per row than an INSERT. COPY cannot skip a stored row (a
 * replayed journal, a retried batch): it then fails whole with a unique violation, storing
 * nothing, and the same records go again through the recordset INSERT, which skips them.
 */
async function copyOrSkipStored<T extends object>(db: Db, table: string, columns: readonly string[], insert: string, records: readonly T[]): Promise<void> {
  try {
    await db.copyFrom(table, columns, copyText(records as readonly Record<string, unknown>[], columns));
  } catch (error) {
    if (errorCode(error) !== UNIQUE_VIOLATION) throw error;
    await db.query(insert, [JSON.stringify(records)]);
  }
}
