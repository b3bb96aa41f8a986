import type { Queryable } from '../db/db';

/** The zone every report's day is a day in, and the currency its amounts are reported in (docs/reports.md). */
export interface ReportingSettings {
  /** IANA time zone, default `UTC`. */
  timezone: string;
  /** ISO 4217 code, default `USD`. */
  currency: string;
}

export const DEFAULT_REPORTING: ReportingSettings = { timezone: 'UTC', currency: 'USD' };

/** The organization's reporting settings (organizations.timezone, organizations.currency). */
export async function selectReportingSettings(db: Queryable, orgId: string): Promise<ReportingSettings> {
  const [row] = await db.query<ReportingSettings>('SELECT timezone, currency FROM organizations WHERE id = $1', [orgId]);
  return row ? { timezone: row.timezone, currency: row.currency } : DEFAULT_REPORTING;
}

/** The settings, the row locked until the transaction ends: a change reads what it replaces. */
export async function lockReportingSettings(tx: Queryable, orgId: string): Promise<ReportingSettings | undefined> {
  const [row] = await tx.query<ReportingSettings>('SELECT timezone, currency FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
  return row && { timezone: row.timezone, currency: row.currency };
}

export async function updateReportingSettings(tx: Queryable, orgId: string, settings: ReportingSettings): Promise<void> {
  await tx.query('UPDATE organizations SET timezone = $2, currency = $3 WHERE id = $1', [orgId, settings.timezone, settings.currency]);
}
