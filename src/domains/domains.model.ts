import { t } from 'elysia';
import { CursorQuery } from '../http/pagination';

/**
 * A custom domain as one organization sees it: `verified` when it holds the name and its TXT
 * check passed, `taken` when another organization has verified it, `unverified` otherwise.
 */
export type DomainStatus = 'verified' | 'unverified' | 'taken';

/** One of an organization's domains as the repository returns it (the holder's details only if it is this organization). */
export interface DomainRow {
  domain: string;
  status: DomainStatus;
  verified_at: Date | null;
  checked_at: Date | null;
  check_error: string | null;
}

export interface DomainResponse {
  domain: string;
  status: DomainStatus;
  verified: boolean;
  verified_at: string | null;
  checked_at: string | null;
  check_error: string | null;
  txt_record: { type: 'TXT'; name: string; value: string };
}

export const DomainParams = t.Object({ domain: t.String({ minLength: 1, maxLength: 259 }) });

export const ListDomainsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: 'must be an integer from 1 to 1000' })),
  cursor: CursorQuery,
});
export type ListDomainsQuery = typeof ListDomainsQuery.static;
export const DEFAULT_LIST_LIMIT = 100;

/** What one check found: the token is there, it is definitely not there, or DNS gave no answer. */
export type CheckOutcome = 'verified' | 'absent' | 'failed';
