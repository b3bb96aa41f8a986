import { t } from 'elysia';
import { validationError } from '../http/errors';
import { MAX_TIMESTAMP_LENGTH, parseTimestamp } from '../shared/timestamp';

/** Query of GET /api/v1/uninstalls; from and to arrive as text and are parsed by parseUninstallFilter. */
export const UninstallsQuery = t.Object({
  app_id: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'must be an app id' })),
  from: t.Optional(t.String({ maxLength: MAX_TIMESTAMP_LENGTH })),
  to: t.Optional(t.String({ maxLength: MAX_TIMESTAMP_LENGTH })),
});
export type UninstallsQuery = typeof UninstallsQuery.static;

export const UninstallsResponse = t.Object({
  data: t.Array(t.Object({ campaign_id: t.Union([t.String(), t.Null()]), uninstalls: t.Integer({ minimum: 1 }) })),
});

export interface UninstallFilter {
  appId: string | null;
  /** Bounds on the time of detection, [from, to), as UTC text to the microsecond. */
  from: string | null;
  to: string | null;
}

/** Turns the validated query into a filter, or throws one 400 listing every bad field. A bare date is its UTC midnight. */
export function parseUninstallFilter(query: UninstallsQuery): UninstallFilter {
  const fieldErrors: Record<string, string[]> = {};
  const bound = (field: 'from' | 'to') => {
    if (query[field] === undefined) return null;
    const parsed = parseTimestamp(query[field], { bareDay: true });
    if ('error' in parsed) {
      fieldErrors[field] = [parsed.error];
      return null;
    }
    return parsed.value;
  };
  const from = bound('from');
  const to = bound('to');
  if (from && to && to.at.getTime() <= from.at.getTime()) fieldErrors.to = ['must be later than from'];
  if (Object.keys(fieldErrors).length > 0) throw validationError(fieldErrors);
  return { appId: query.app_id ?? null, from: from?.iso ?? null, to: to?.iso ?? null };
}
