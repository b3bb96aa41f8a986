import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, type Keyset, type PageRequest } from '../http/pagination';
import type { CheckOutcome, DomainRow } from './domains.model';

/**
 * A link's domain status as a column of a statement over `links` (SELECT or RETURNING): null on
 * the tracking host, else 'verified', 'taken' (another organization verified it) or 'unverified'.
 */
export const LINK_DOMAIN_STATUS = `CASE WHEN links.domain = '' THEN NULL ELSE COALESCE(
  (SELECT CASE WHEN d.verified_at IS NULL THEN 'unverified' WHEN d.org_id = links.org_id THEN 'verified' ELSE 'taken' END
   FROM link_domains d WHERE d.domain = links.domain), 'unverified') END AS domain_status`;

/**
 * Claims a custom domain for an organization, or finds who holds it, in one statement
 * (the no-op update makes RETURNING give the existing row; no read-then-write race).
 */
export async function claimDomain(tx: Queryable, domain: string, orgId: string): Promise<string> {
  const rows = await tx.query<{ org_id: string }>(
    `INSERT INTO link_domains (domain, org_id) VALUES ($1, $2)
     ON CONFLICT (domain) DO UPDATE SET domain = link_domains.domain
     RETURNING org_id`,
    [domain, orgId],
  );
  return rows[0]!.org_id;
}

/**
 * The organization's verification token, minted on first use. Of two racing first uses the
 * second UPDATE finds the token set (it waits for the first) and reads it back.
 */
export async function organizationToken(db: Queryable, orgId: string, fresh: string): Promise<string> {
  const minted = await db.query<{ domain_token: string }>(
    'UPDATE organizations SET domain_token = $2 WHERE id = $1 AND domain_token IS NULL RETURNING domain_token',
    [orgId, fresh],
  );
  if (minted[0]) return minted[0].domain_token;
  const rows = await db.query<{ domain_token: string }>('SELECT domain_token FROM organizations WHERE id = $1', [orgId]);
  return rows[0]!.domain_token;
}

/** The names the organization holds or has links on, by name; another holder's details stay hidden. */
/** By name; a name is the list's key, so the cursor carries it. */
export const DOMAINS_KEYSET: Keyset = { kind: 'values', list: 'domains', columns: [{ column: 'domain', cast: 'text', direction: 'asc' }] };

export function listDomains(db: Queryable, orgId: string, page: PageRequest): Promise<DomainRow[]> {
  const after = keysetCondition(DOMAINS_KEYSET, page.after, 3, '$1', 'n.');
  return db.query<DomainRow>(
    `SELECT n.domain,
       CASE WHEN d.verified_at IS NULL THEN 'unverified' WHEN d.org_id = $1 THEN 'verified' ELSE 'taken' END AS status,
       CASE WHEN d.org_id = $1 THEN d.verified_at END AS verified_at,
       CASE WHEN d.org_id = $1 THEN d.checked_at END AS checked_at,
       CASE WHEN d.org_id = $1 THEN d.check_error END AS check_error
     FROM (SELECT domain FROM link_domains WHERE org_id = $1
           UNION SELECT domain FROM links WHERE org_id = $1 AND domain <> '') AS n
     LEFT JOIN link_domains d ON d.domain = n.domain
     WHERE ${after.sql}
     ORDER BY ${keysetOrder(DOMAINS_KEYSET, 'n.')}
     LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/**
 * Records a check by `orgId` in one statement. A name another organization holds changes hands
 * only on a passed check while the holder is unverified or its token is missing from the same
 * answer (`presentTokens`); undefined, with nothing written, when the name stays with the holder.
 */
export async function recordCheck(
  tx: Queryable,
  check: { domain: string; orgId: string; outcome: CheckOutcome; error: string | null; presentTokens: string[] },
): Promise<Omit<DomainRow, 'domain' | 'status'> | undefined> {
  const rows = await tx.query<Omit<DomainRow, 'domain' | 'status'>>(
    `INSERT INTO link_domains AS d (domain, org_id, verified_at, checked_at, check_error)
     VALUES ($1, $2, CASE WHEN $3::text = 'verified' THEN now() END, now(), $4::text)
     ON CONFLICT (domain) DO UPDATE SET
       org_id = excluded.org_id,
       verified_at = CASE
         WHEN $3::text = 'verified' AND d.org_id = excluded.org_id THEN COALESCE(d.verified_at, excluded.verified_at)
         WHEN $3::text = 'verified' THEN excluded.verified_at
         WHEN $3::text = 'failed' THEN d.verified_at
         ELSE NULL END,
       checked_at = excluded.checked_at,
       check_error = excluded.check_error
     WHERE d.org_id = excluded.org_id
        OR ($3::text = 'verified' AND (d.verified_at IS NULL OR NOT EXISTS (
              SELECT 1 FROM organizations o
              WHERE o.id = d.org_id AND o.domain_token IN (SELECT jsonb_array_elements_text($5::text::jsonb)))))
     RETURNING verified_at, checked_at, check_error`,
    [check.domain, check.orgId, check.outcome, check.error, JSON.stringify(check.presentTokens)],
  );
  return rows[0];
}
