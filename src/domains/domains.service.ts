import { type Actor, recordAudit } from '../auth/audit';
import { randomToken } from '../shared/crypto/secrets';
import type { Config } from '../config/config';
import type { Db, Queryable } from '../db/db';
import { conflict, fieldError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { announce, domainChange, type LinkChanges } from '../tracking/redirect/link-cache/link-changes';
import { parseDomain } from '../shared/net/hostname';
import { type CheckOutcome, DEFAULT_LIST_LIMIT, type DomainResponse, type DomainRow, type ListDomainsQuery } from './domains.model';
import * as repo from './domains.repo';
import { lookupTokens, type TxtResolver, txtName, txtRecord } from './txt-lookup';

export interface DomainsDeps {
  db: Db;
  config: Pick<Config, 'trackingHost'>;
  linkChanges: Pick<LinkChanges, 'publish'>;
  resolveTxt: TxtResolver;
}

/** Long enough that no one guesses another organization's token; it is public once published. */
const TOKEN_LENGTH = 32;

export function organizationToken(db: Queryable, orgId: string): Promise<string> {
  return repo.organizationToken(db, orgId, randomToken(TOKEN_LENGTH));
}

function toDomainResponse(row: DomainRow, token: string): DomainResponse {
  return {
    domain: row.domain,
    status: row.status,
    verified: row.status === 'verified',
    verified_at: row.verified_at?.toISOString() ?? null,
    checked_at: row.checked_at?.toISOString() ?? null,
    check_error: row.check_error,
    txt_record: txtRecord(row.domain, token),
  };
}

export async function listDomains(deps: Pick<DomainsDeps, 'db'>, orgId: string, query: ListDomainsQuery = {}): Promise<Page<DomainResponse>> {
  const token = await organizationToken(deps.db, orgId);
  return readPage({
    keyset: repo.DOMAINS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listDomains(deps.db, orgId, page),
    keyOf: (row) => [row.domain],
    view: (row) => toDomainResponse(row, token),
  });
}

/** The path's domain as links store it; the tracking host has nothing to verify. */
function parseVerifiedDomain(raw: string, trackingHost: string): string {
  if (raw.toLowerCase() === trackingHost) throw fieldError('domain', 'is the tracking host, which needs no verification');
  const parsed = parseDomain(raw);
  if ('error' in parsed) throw fieldError('domain', parsed.error);
  return parsed.value;
}

/**
 * Looks the organization's TXT record up now and records what it found (docs/management-api.md,
 * "Custom domains"). The lookup runs outside the transaction; the result is written in one
 * statement that decides who holds the name. 409 when another organization keeps it.
 */
export async function verifyDomain(deps: DomainsDeps, actor: Actor, rawDomain: string): Promise<DomainResponse> {
  const domain = parseVerifiedDomain(rawDomain, deps.config.trackingHost);
  const token = await organizationToken(deps.db, actor.orgId);
  const name = txtName(domain);
  const lookup = await lookupTokens(deps.resolveTxt, name);
  const { outcome, error } = judge(lookup, token, name);
  const presentTokens = lookup.kind === 'found' ? lookup.tokens : [];
  const row = await deps.db.transaction(async (tx) => {
    const recorded = await repo.recordCheck(tx, { domain, orgId: actor.orgId, outcome, error, presentTokens });
    if (!recorded) throw conflict('domain taken');
    await recordAudit(tx, actor, { action: 'verify', entity: 'domain', entityId: domain, detail: { outcome, verified: recorded.verified_at !== null } });
    return recorded;
  });
  // Whether this check started, kept, ended or moved the domain's service, every node re-reads its links.
  await announce(deps.linkChanges, domainChange(domain));
  return toDomainResponse({ domain, status: row.verified_at ? 'verified' : 'unverified', ...row }, token);
}

function judge(lookup: Awaited<ReturnType<typeof lookupTokens>>, token: string, name: string): { outcome: CheckOutcome; error: string | null } {
  if (lookup.kind === 'failed') return { outcome: 'failed', error: `the DNS lookup of ${name} failed (${lookup.code}); the verification is unchanged` };
  if (lookup.kind === 'absent') return { outcome: 'absent', error: `no TXT record at ${name}` };
  if (!lookup.tokens.includes(token)) return { outcome: 'absent', error: `no TXT record at ${name} holds svc-verify=${token}` };
  return { outcome: 'verified', error: null };
}
