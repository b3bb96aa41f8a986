import { type Actor, recordAudit } from '../auth/audit';
import type { Db } from '../db/db';
import { fieldError, notFound, validationError } from '../http/errors';
import { isTimeZone } from '../analytics/reporting/zone-days';
import type { PutSettingsBody } from './settings.model';
import { TIME_ZONE_ERROR } from './settings.model';
import { lockReportingSettings, type ReportingSettings, selectReportingSettings, updateReportingSettings } from './settings.repo';

export function getSettings({ db }: { db: Db }, orgId: string): Promise<ReportingSettings> {
  return selectReportingSettings(db, orgId);
}

/** The zone as the runtime spells it (`europe/berlin` is `Europe/Berlin`), or a 400 naming `timezone`. */
function canonicalZone(zone: string): string {
  if (!isTimeZone(zone)) throw fieldError('timezone', TIME_ZONE_ERROR);
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

/**
 * Changes the fields given, the others stay; a body naming none is a 400. The row is locked
 * while it changes, so the audit row records what was replaced. Exchange rates stay: they are
 * quoted in the currency they were written under (docs/reports.md, "Exchange rates").
 */
export async function putSettings({ db }: { db: Db }, actor: Actor, body: PutSettingsBody): Promise<ReportingSettings> {
  const fields = (['timezone', 'currency'] as const).filter((field) => body[field] !== undefined);
  if (fields.length === 0) throw validationError({}, ['the body names no field to change: timezone, currency']);
  const timezone = body.timezone === undefined ? undefined : canonicalZone(body.timezone);
  return db.transaction(async (tx) => {
    const before = await lockReportingSettings(tx, actor.orgId);
    if (!before) throw notFound('organization not found');
    const after = { timezone: timezone ?? before.timezone, currency: body.currency ?? before.currency };
    await updateReportingSettings(tx, actor.orgId, after);
    const changes = Object.fromEntries(fields.map((field) => [field, { from: before[field], to: after[field] }]));
    await recordAudit(tx, actor, { action: 'update', entity: 'settings', entityId: actor.orgId, detail: changes });
    return after;
  });
}
