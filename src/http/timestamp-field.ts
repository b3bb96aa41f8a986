import { parseTimestamp } from '../shared/timestamp';
import { fieldError } from './errors';

/**
 * The instant of a value the route's schema already checked with `Timestamp`; the check runs
 * again so a caller that skipped the schema still gets the 400, never an Invalid Date.
 */
export function instantOf(raw: string, field: string): Date {
  const parsed = parseTimestamp(raw);
  if ('error' in parsed) throw fieldError(field, parsed.error);
  return parsed.value.at;
}
