import { t } from 'elysia';
import { fieldError } from '../../http/errors';

/** Query of GET /api/protect/export; `days` arrives as text and is checked by parseExportDays. */
export const ExportQuery = t.Object({ days: t.Optional(t.String({ maxLength: 8 })) });
export type ExportQuery = typeof ExportQuery.static;

export const DEFAULT_EXPORT_DAYS = 30;
export const MAX_EXPORT_DAYS = 365;

/** The CSV's columns, in order (docs/protect.md, "GET /api/protect/export?days= (session)"). */
export const EXPORT_COLUMNS = ['ip', 'reasons', 'score', 'gclid', 'campaign', 'clicks', 'first_seen', 'last_seen'] as const;

export function parseExportDays(query: ExportQuery): number {
  if (query.days === undefined) return DEFAULT_EXPORT_DAYS;
  const days = /^[0-9]{1,3}$/.test(query.days) ? Number(query.days) : NaN;
  if (days >= 1 && days <= MAX_EXPORT_DAYS) return days;
  throw fieldError('days', `must be an integer from 1 to ${MAX_EXPORT_DAYS}`);
}
