import { t } from 'elysia';

/**
 * An ISO 4217 code as three capital letters, not checked against a list: amounts are stored
 * under any three letters (cost import, conversions, the SDK), and a list shipped with the
 * runtime lags new codes, so a list would refuse a currency the data already holds.
 */
export const CURRENCY_PATTERN = '^[A-Z]{3}$';
export const CURRENCY_ERROR = 'must be an ISO 4217 code: three capital letters, such as USD or EUR';
export const Currency = (description: string) => t.String({ pattern: CURRENCY_PATTERN, error: CURRENCY_ERROR, description });

/** An IANA zone name starts with a letter: this keeps out the UTC offsets (`+01:00`) Intl also takes. */
export const TIME_ZONE_PATTERN = '^[A-Za-z][A-Za-z0-9_+\\-/]{0,63}$';
export const TIME_ZONE_ERROR = 'must be an IANA time zone, such as UTC or Europe/Berlin';

const TimeZone = t.String({ maxLength: 64, pattern: TIME_ZONE_PATTERN, error: TIME_ZONE_ERROR, description: 'IANA time zone every report\'s day is a day in' });
const ReportingCurrency = Currency('ISO 4217 code every amount is reported in (docs/reports.md, "Exchange rates")');

/** PUT /api/v1/settings: the fields given change, the others stay. */
export const PutSettingsBody = t.Object({ timezone: t.Optional(TimeZone), currency: t.Optional(ReportingCurrency) }, { additionalProperties: false });
export type PutSettingsBody = typeof PutSettingsBody.static;

export const SettingsAnswer = t.Object({ timezone: TimeZone, currency: ReportingCurrency });
