import { type Actor, recordAudit } from '../auth/audit';
import { randomToken } from '../shared/crypto/secrets';
import { campaignExists } from '../campaigns/campaigns.repo';
import type { Config } from '../config/config';
import type { Db, Queryable } from '../db/db';
import { claimDomain } from '../domains/domains.repo';
import { conflict, fieldError, notFound, validationError } from '../http/errors';
import { readPage, type Page } from '../http/pagination';
import { newId } from '../shared/ids';
import { parseTimestamp } from '../shared/timestamp';
import { parseLandingHosts } from '../tracking/redirect/landing-hosts';
import { parseRules } from '../tracking/smartlinks/rules/parse-rules';
import type { RuleSet } from '../tracking/smartlinks/rules/rules.model';
import { parseDomain } from '../shared/net/hostname';
import { parseHttpUrl } from '../shared/net/web-url';
import { parseDeepLinkPath, type Parsed } from './link-fields';
import { parsePreview } from './link-preview';
import { announce, type LinkChanges } from '../tracking/redirect/link-cache/link-changes';
import {
  type CreateLinkBody,
  DEFAULT_LIST_LIMIT,
  GENERATED_SLUG_LENGTH,
  type LinkResponse,
  type LinkRow,
  type LinkFilters,
  type LinkKind,
  type LinkStatus,
  type LinkUpdate,
  type ListLinksQuery,
  type PatchLinkBody,
} from './links.model';
import * as repo from './links.repo';

export interface LinksDeps {
  db: Db;
  config: Pick<Config, 'trackingUrl' | 'trackingHost' | 'domainVerification'>;
  linkChanges: Pick<LinkChanges, 'publish'>;
}

/** A generated slug that keeps colliding gets longer; past this many draws something is wrong. */
const MAX_SLUG_DRAWS = 10;

/** Why a custom domain does not serve its links, or null when it does. */
function domainNote(domain: string, status: LinkResponse['domain_status']): string | null {
  if (status === 'unverified') {
    return `links on ${domain} answer 404 until this organization verifies the domain: GET /api/v1/domains shows the TXT record to publish, POST /api/v1/domains/${domain}/verify checks it`;
  }
  if (status === 'taken') return `${domain} is verified by another organization: links of this organization on it answer 404`;
  return null;
}

export function toLinkResponse(row: LinkRow, config: Pick<Config, 'trackingUrl' | 'domainVerification'>): LinkResponse {
  const origin = row.domain === '' ? config.trackingUrl : `https://${row.domain}`;
  const domainStatus = row.domain === '' ? null : config.domainVerification === 'off' ? 'not_required' : (row.domain_status ?? 'unverified');
  return {
    id: row.id,
    slug: row.slug,
    kind: row.kind,
    campaign_id: row.campaign_id,
    destination: row.destination,
    domain: row.domain === '' ? null : row.domain,
    status: row.status,
    expires_at: row.expires_at?.toISOString() ?? null,
    click_cap: row.click_cap,
    rules: row.rules ?? null,
    pass_params: row.pass_params,
    preview: row.preview ?? null,
    deep_link_path: row.deep_link_path,
    allowed_landing_hosts: row.allowed_landing_hosts ?? null,
    domain_status: domainStatus,
    domain_note: domainNote(row.domain, domainStatus),
    url: `${origin}/${row.kind === 'smart' ? 'l' : 'c'}/${row.slug}`,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Turns the mutable fields present in a body into stored values, collecting every field error for
 * one 400. A domain equal to the tracking host is stored as '', so a slug cannot exist twice under
 * two spellings of that host.
 */
export function parseLinkUpdate(body: PatchLinkBody, trackingHost: string): LinkUpdate {
  const update: LinkUpdate = {};
  const errors: Record<string, string[]> = {};
  const take = <T>(field: string, parsed: Parsed<T>, set: (value: T) => void) => {
    if ('error' in parsed) errors[field] = [parsed.error];
    else set(parsed.value);
  };
  const nullable = <T>(field: keyof PatchLinkBody, parse: (raw: never) => Parsed<T>, set: (value: T | null) => void) => {
    const raw = body[field];
    if (raw === undefined) return;
    if (raw === null) set(null);
    else take(field, parse(raw as never), set);
  };
  nullable('destination', parseHttpUrl, (v) => (update.destination = v));
  // Checked before parsing: a development tracking host such as localhost:3000 is no public hostname.
  const onTrackingHost = (raw: string): Parsed<string> => (raw.toLowerCase() === trackingHost ? { value: '' } : parseDomain(raw));
  nullable('domain', onTrackingHost, (v) => (update.domain = v ?? ''));
  const instant = (raw: string): Parsed<Date> => {
    const parsed = parseTimestamp(raw);
    return 'error' in parsed ? parsed : { value: parsed.value.at };
  };
  nullable('expires_at', instant, (v) => (update.expires_at = v));
  if (body.rules === null) update.rules = null;
  else if (body.rules !== undefined) {
    const rules = parseRules(body.rules);
    if (rules.ok) update.rules = rules.value;
    else Object.assign(errors, rules.fieldErrors);
  }
  if (body.preview === null) update.preview = null;
  else if (body.preview !== undefined) {
    const preview = parsePreview(body.preview);
    if ('errors' in preview) Object.assign(errors, preview.errors);
    else update.preview = preview.value;
  }
  if (body.pass_params !== undefined) update.pass_params = body.pass_params;
  nullable('deep_link_path', parseDeepLinkPath, (v) => (update.deep_link_path = v));
  if (body.allowed_landing_hosts === null) update.allowed_landing_hosts = null;
  else if (body.allowed_landing_hosts !== undefined) {
    const hosts = parseLandingHosts(body.allowed_landing_hosts);
    if ('errors' in hosts) Object.assign(errors, hosts.errors);
    else update.allowed_landing_hosts = hosts.value;
  }
  if (body.click_cap !== undefined) update.click_cap = body.click_cap;
  if (body.status !== undefined) update.status = body.status;
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return update;
}

/**
 * Rules, a preview and passed parameters are read by /l only: on a tracking link they would be
 * silently ignored, so setting them there is a 400 (clearing them is allowed).
 */
function assertSmartOnly(kind: LinkKind, update: LinkUpdate): void {
  if (kind === 'smart') return;
  const errors: Record<string, string[]> = {};
  if (update.rules) errors.rules = ['only smart links have rules'];
  if (update.preview) errors.preview = ['only smart links have a preview'];
  if (update.pass_params) errors.pass_params = ['only smart links pass parameters on'];
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

/**
 * A custom domain is held by the first organization that binds a link to it, until another one
 * proves control of it by DNS (src/domains/). Its links serve once the holder has verified it.
 */
async function assertDomainOwned(tx: Queryable, domain: string | undefined, orgId: string): Promise<void> {
  if (!domain) return;
  if ((await claimDomain(tx, domain, orgId)) !== orgId) throw conflict('domain taken');
}

export async function createLink(deps: LinksDeps, actor: Actor, body: CreateLinkBody): Promise<LinkResponse> {
  const { slug, kind, campaign_id, ...mutable } = body;
  const fields = parseLinkUpdate(mutable, deps.config.trackingHost);
  assertSmartOnly(kind ?? 'tracking', fields);
  const campaignId = campaign_id ?? null;
  const row = await deps.db.transaction(async (tx) => {
    // Another organization's campaign reads exactly like an unknown one.
    if (campaignId !== null && !(await campaignExists(tx, actor.orgId, campaignId))) throw fieldError('campaign_id', 'unknown campaign');
    const domain = fields.domain ?? '';
    await assertDomainOwned(tx, domain, actor.orgId);
    let created: LinkRow | undefined;
    for (let draw = 0; !created; draw++) {
      if (slug === undefined && draw >= MAX_SLUG_DRAWS) throw new Error('no free slug after repeated draws');
      created = await repo.insertLink(tx, {
        id: newId(),
        orgId: actor.orgId,
        // The unique index decides; a generated slug that collides is drawn again, a bit longer each time.
        slug: slug ?? randomToken(GENERATED_SLUG_LENGTH + Math.floor(draw / 3)),
        domain,
        kind: kind ?? 'tracking',
        campaignId,
        destination: fields.destination ?? null,
        deepLinkPath: fields.deep_link_path ?? null,
        status: fields.status ?? 'active',
        expiresAt: fields.expires_at ?? null,
        clickCap: fields.click_cap ?? null,
        rules: fields.rules ?? null,
        passParams: fields.pass_params ?? false,
        preview: fields.preview ?? null,
        allowedLandingHosts: fields.allowed_landing_hosts ?? null,
      });
      if (!created && slug !== undefined) throw conflict('slug taken');
    }
    await recordAudit(
      tx,
      actor,
      { action: 'create', entity: 'link', entityId: created.id, detail: { slug: created.slug, domain: created.domain, kind: created.kind } },
    );
    return created;
  });
  await announce(deps.linkChanges, row.id);
  return toLinkResponse(row, deps.config);
}

export async function getLink(deps: Pick<LinksDeps, 'db' | 'config'>, orgId: string, id: string): Promise<LinkResponse> {
  const row = await repo.findLink(deps.db, orgId, id);
  if (!row) throw notFound('link not found');
  return toLinkResponse(row, deps.config);
}

/** The link with this slug: the tracking host's when custom domains carry the slug too. */
export async function getLinkBySlug(deps: Pick<LinksDeps, 'db' | 'config'>, orgId: string, slug: string): Promise<LinkResponse> {
  const row = await repo.findLinkBySlug(deps.db, orgId, slug);
  if (!row) throw notFound('link not found');
  return toLinkResponse(row, deps.config);
}

/**
 * The list's filters as stored values: the tracking host's name (any case) is the domain '' of
 * links without a custom domain.
 */
export function linkFilters(query: ListLinksQuery, trackingHost: string): LinkFilters {
  const domain = query.domain?.trim().toLowerCase().replace(/\.$/, '');
  return {
    search: query.q,
    kind: query.kind,
    status: query.status,
    campaignId: query.campaign_id,
    domain: domain === undefined ? undefined : domain === trackingHost.toLowerCase() ? '' : domain,
  };
}

/** A page of links in the query's order (newest first by default), narrowed by its filters. */
export function listLinks(deps: Pick<LinksDeps, 'db' | 'config'>, orgId: string, query: ListLinksQuery = {}): Promise<Page<LinkResponse>> {
  const sort = query.sort ?? '-created_at';
  const filters = linkFilters(query, deps.config.trackingHost);
  return readPage({
    keyset: repo.LINK_KEYSETS[sort],
    orgId,
    query,
    defaultLimit: DEFAULT_LIST_LIMIT,
    fetch: (page) => repo.listLinks(deps.db, orgId, page, filters, sort),
    keyOf: (row) => repo.linkKeyOf(row, sort),
    view: (row) => toLinkResponse(row, deps.config),
  });
}

/**
 * PATCH semantics: absent fields stay, present fields replace (null clears; domain null moves
 * the link back to the tracking host). Moving to a domain where the slug exists is 409.
 */
export async function patchLink(deps: LinksDeps, actor: Actor, id: string, body: PatchLinkBody): Promise<LinkResponse> {
  const update = parseLinkUpdate(body, deps.config.trackingHost);
  const fields = Object.keys(update);
  if (fields.length === 0) throw validationError({}, ['the body names no field to change']);
  const row = await deps.db.transaction(async (tx) => {
    // A link's kind never changes, so reading it first cannot race with the update.
    if (update.rules || update.preview || update.pass_params) {
      const current = await repo.findLink(tx, actor.orgId, id);
      if (!current) throw notFound('link not found');
      assertSmartOnly(current.kind, update);
    }
    let updated: LinkRow | undefined;
    try {
      updated = await repo.updateLink(tx, actor.orgId, id, update);
    } catch (error) {
      if (repo.isUniqueViolation(error, repo.LINKS_DOMAIN_SLUG_KEY)) throw conflict('slug taken');
      throw error;
    }
    if (!updated) throw notFound('link not found');
    await assertDomainOwned(tx, update.domain, actor.orgId);
    await recordAudit(tx, actor, { action: 'update', entity: 'link', entityId: id, detail: { fields } });
    return updated;
  });
  await announce(deps.linkChanges, row.id);
  return toLinkResponse(row, deps.config);
}

/**
 * Deletes a link (docs/links-api.md, "DELETE /api/v1/links/{id}"): /c and /l answer 404 for it from the
 * next visit on, its slug is free again, and its clicks, installs and conversions stay in the reports.
 */
export async function deleteLink(deps: LinksDeps, actor: Actor, id: string): Promise<{ ok: true; id: string }> {
  await deps.db.transaction(async (tx) => {
    const row = await repo.deleteLink(tx, actor.orgId, id);
    if (!row) throw notFound('link not found');
    await recordAudit(tx, actor, { action: 'delete', entity: 'link', entityId: id, detail: { slug: row.slug, domain: row.domain, kind: row.kind } });
  });
  await announce(deps.linkChanges, id);
  return { ok: true, id };
}

export interface Replaced {
  link: LinkResponse;
  /** false when the link already had this value: nothing was written, audited or announced. */
  changed: boolean;
}

/**
 * Replaces a smart link's rule set whole (null removes it), checked as PATCH checks it. Safe to
 * repeat: a rule set equal to the stored one, once normalised, writes nothing.
 */
export async function replaceSmartLinkRules(deps: LinksDeps, actor: Actor, id: string, input: unknown): Promise<Replaced> {
  let rules: RuleSet | null = null;
  if (input !== null) {
    const parsed = parseRules(input);
    if (!parsed.ok) throw validationError(parsed.fieldErrors);
    rules = parsed.value;
  }
  return replaceField(deps, actor, id, 'rules', (tx) => repo.replaceRulesIfChanged(tx, actor.orgId, id, rules), (current) => {
    if (current.kind !== 'smart') throw fieldError('link_id', 'is a tracking link: only smart links have rules');
  });
}

/** Sets a link's status (active or paused); a repeat writes nothing. */
export function setLinkStatus(deps: LinksDeps, actor: Actor, id: string, status: LinkStatus): Promise<Replaced> {
  return replaceField(deps, actor, id, 'status', (tx) => repo.replaceStatusIfChanged(tx, actor.orgId, id, status));
}

/**
 * One field written only when it differs, audited and announced only then. When nothing was
 * written, the link as it stands says why: unknown (404), refused by `check`, or already so.
 */
async function replaceField(
  deps: LinksDeps,
  actor: Actor,
  id: string,
  field: keyof LinkUpdate,
  write: (tx: Queryable) => Promise<LinkRow | undefined>,
  check: (current: LinkRow) => void = () => {},
): Promise<Replaced> {
  const written = await deps.db.transaction(async (tx) => {
    const row = await write(tx);
    if (row) await recordAudit(tx, actor, { action: 'update', entity: 'link', entityId: id, detail: { fields: [field], via: 'mcp' } });
    return row;
  });
  if (written) {
    await announce(deps.linkChanges, written.id);
    return { link: toLinkResponse(written, deps.config), changed: true };
  }
  const current = await repo.findLink(deps.db, actor.orgId, id);
  if (!current) throw notFound('link not found');
  check(current);
  return { link: toLinkResponse(current, deps.config), changed: false };
}
