import type { Queryable } from '../db/db';
import { keysetCondition, keysetOrder, readPage, type Keyset, type Page, type PageRequest } from '../http/pagination';
import { newId } from '../shared/ids';
import { constantTimeEqual, randomToken, sha256Hex } from '../shared/crypto/secrets';

export const API_KEY_PATTERN = /^svc_live_[A-Za-z0-9]{32}$/;
/** The clear part kept for display and lookup: `svc_live_` plus the first 8 random characters. */
const PREFIX_LENGTH = 'svc_live_'.length + 8;

export interface IssuedApiKey {
  id: string;
  name: string;
  prefix: string;
  /** The full key: shown once, never stored. */
  api_key: string;
  rate_limit_per_minute: number | null;
  created_at: Date;
}

export interface ApiKeyPrincipal {
  keyId: string;
  orgId: string;
}

/** A key found live, as authentication answers it: with its own limit (src/auth/key-rate-limit.ts), null for none. */
export interface AuthenticatedApiKey extends ApiKeyPrincipal {
  rateLimitPerMinute: number | null;
}

export async function issueApiKey(
  db: Queryable,
  input: { orgId: string; name: string; createdBy?: string; rateLimitPerMinute?: number | null },
): Promise<IssuedApiKey> {
  const rateLimitPerMinute = input.rateLimitPerMinute ?? null;
  for (;;) {
    const key = `svc_live_${randomToken(32)}`;
    const prefix = key.slice(0, PREFIX_LENGTH);
    const rows = await db.query<{ id: string; created_at: Date }>(
      `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, created_by, rate_limit_per_minute) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (prefix) DO NOTHING RETURNING id, created_at`,
      [newId(), input.orgId, input.name, prefix, sha256Hex(key), input.createdBy ?? null, rateLimitPerMinute],
    );
    const row = rows[0];
    if (row) return { id: row.id, name: input.name, prefix, api_key: key, rate_limit_per_minute: rateLimitPerMinute, created_at: row.created_at };
    // 62^8 prefixes: a collision is rare, and simply draws another key.
  }
}

/** The clear prefix a presented key is looked up by, or null when it is no API key at all. */
export function apiKeyPrefix(presented: string | undefined | null): string | null {
  return presented && API_KEY_PATTERN.test(presented) ? presented.slice(0, PREFIX_LENGTH) : null;
}

export interface LiveApiKey extends AuthenticatedApiKey {
  keyHash: string;
}

/**
 * The live (unrevoked) key with this prefix, or null. Refreshes last_used_at, which is
 * advisory: at most once a minute, so reads don't become writes.
 */
export async function findLiveApiKey(db: Queryable, prefix: string): Promise<LiveApiKey | null> {
  const rows = await db.query<{ id: string; org_id: string; key_hash: string; rate_limit_per_minute: number | null; stale: boolean }>(
    `SELECT id, org_id, key_hash, rate_limit_per_minute, (last_used_at IS NULL OR last_used_at < now() - interval '1 minute') AS stale
       FROM api_keys WHERE prefix = $1 AND revoked_at IS NULL`,
    [prefix],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.stale) db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [row.id]).catch(() => {});
  return { keyId: row.id, orgId: row.org_id, keyHash: row.key_hash, rateLimitPerMinute: row.rate_limit_per_minute };
}

/** Whether the presented key is the live key's secret: SHA-256 digests compared in constant time. */
export const isKeySecret = (key: LiveApiKey, presented: string) => constantTimeEqual(key.keyHash, sha256Hex(presented));

/**
 * Finds the live key by its clear prefix, then compares SHA-256 digests in constant time.
 * Nothing is cached, so a revoked key fails on the very next request on every node.
 */
export async function authenticateApiKey(db: Queryable, presented: string | undefined | null): Promise<AuthenticatedApiKey | null> {
  const prefix = apiKeyPrefix(presented);
  if (prefix === null) return null;
  const key = await findLiveApiKey(db, prefix);
  if (!key || !isKeySecret(key, presented!)) return null;
  return principalOf(key);
}

/** What a route learns of a live key: everything but its digest. */
export const principalOf = (key: LiveApiKey): AuthenticatedApiKey => ({ keyId: key.keyId, orgId: key.orgId, rateLimitPerMinute: key.rateLimitPerMinute });

export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  rate_limit_per_minute: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const LISTING_COLUMNS = 'id, name, prefix, rate_limit_per_minute, created_at, last_used_at, revoked_at';

/** Newest first; the cursor names the last key shown. */
export const API_KEYS_KEYSET: Keyset = { kind: 'anchor', list: 'api-keys', table: 'api_keys', columns: ['created_at', 'id'], direction: 'desc', id: 'id', org: 'org_id' };

export function listApiKeys(db: Queryable, orgId: string, page: PageRequest): Promise<ApiKeyListing[]> {
  const after = keysetCondition(API_KEYS_KEYSET, page.after, 3);
  return db.query<ApiKeyListing>(
    `SELECT ${LISTING_COLUMNS} FROM api_keys
      WHERE org_id = $1 AND ${after.sql} ORDER BY ${keysetOrder(API_KEYS_KEYSET)} LIMIT $2`,
    [orgId, page.limit, ...after.params],
  );
}

/**
 * Sets one key's own limit; call it in a transaction. Answers the limit before (for the audit
 * row) and the key after; undefined when the organization has no such key (another
 * organization's id reads as unknown). A revoked key's limit may still be set: it is never counted.
 */
export async function setApiKeyRateLimit(
  tx: Queryable,
  orgId: string,
  keyId: string,
  rateLimitPerMinute: number | null,
): Promise<{ before: number | null; key: ApiKeyListing } | undefined> {
  const current = await tx.query<{ rate_limit_per_minute: number | null }>(
    'SELECT rate_limit_per_minute FROM api_keys WHERE id = $1 AND org_id = $2 FOR UPDATE',
    [keyId, orgId],
  );
  if (!current[0]) return undefined;
  const rows = await tx.query<ApiKeyListing>(
    `UPDATE api_keys SET rate_limit_per_minute = $3 WHERE id = $1 AND org_id = $2 RETURNING ${LISTING_COLUMNS}`,
    [keyId, orgId, rateLimitPerMinute],
  );
  return { before: current[0].rate_limit_per_minute, key: rows[0]! };
}

/**
 * A page of the organization's keys. The default page is the largest (1000), so an organization
 * with no more keys than that gets every key in one answer.
 */
export const DEFAULT_KEYS_LIMIT = 1000;

export function listApiKeyPage(db: Queryable, orgId: string, query: { limit?: number; cursor?: string }): Promise<Page<ApiKeyListing>> {
  return readPage({
    keyset: API_KEYS_KEYSET,
    orgId,
    query,
    defaultLimit: DEFAULT_KEYS_LIMIT,
    fetch: (page) => listApiKeys(db, orgId, page),
    keyOf: (row) => [row.id],
    view: (row) => row,
  });
}

/** Revokes one key of the organization; false when it has no such live key. */
export async function revokeApiKey(db: Queryable, orgId: string, keyId: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND org_id = $2 AND revoked_at IS NULL RETURNING id',
    [keyId, orgId],
  );
  return rows.length > 0;
}

export async function revokeApiKeyByPrefix(db: Queryable, prefix: string): Promise<{ id: string; org_id: string } | undefined> {
  const rows = await db.query<{ id: string; org_id: string }>(
    'UPDATE api_keys SET revoked_at = now() WHERE prefix = $1 AND revoked_at IS NULL RETURNING id, org_id',
    [prefix],
  );
  return rows[0];
}
