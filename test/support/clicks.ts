import type { Queryable } from '../../src/db/db';
import { riskScore } from '../../src/tracking/risk/risk-signals';
import { newId } from '../../src/shared/ids';
import type { IpHasher } from '../../src/shared/crypto/ip-hash';

/** The clicks columns a test may set, named as in the Click read model; the rest stay null or false. */
export interface ClickOverrides {
  orgId: string;
  id?: string;
  createdAt?: Date | string;
  linkId?: string | null;
  campaignId?: string | null;
  gclid?: string | null;
  gbraid?: string | null;
  wbraid?: string | null;
  campaignExtId?: string | null;
  adGroupExtId?: string | null;
  creativeId?: string | null;
  keyword?: string | null;
  matchType?: string | null;
  network?: string | null;
  device?: string | null;
  nextHopUrl?: string;
  transparentParamPresent?: boolean;
  forceTransparent?: boolean;
  isBot?: boolean;
  latencyMs?: number | null;
  ip?: string | null;
  userAgent?: string | null;
  osFamily?: string | null;
  osVersion?: string | null;
  deviceType?: string | null;
  dropReason?: string | null;
  /** Risk reasons (signal names); the score is taken from the signal table unless `riskScore` is given. */
  riskReasons?: string[];
  riskScore?: number;
  country?: string | null;
  /** The region enrichment would give the address (a city database name such as "Bavaria"). */
  region?: string | null;
  referer?: string | null;
  /** A smart-link click's routing decision (docs/click-export.md, "route"). */
  route?: Record<string, unknown> | null;
  /** With an `ip`: its IP+day and household hashes are stored too, as the pipeline stores them. */
  ipHasher?: IpHasher;
}

/** A click from the Android phone the SDK tests call from (test/sdk/support.ts sends the same address). */
export const ANDROID_PHONE = { ip: '203.0.113.10', osFamily: 'Android', deviceType: 'mobile' } as const;

/**
 * A click row written straight into storage, as the redirect pipeline would have flushed it, for
 * tests of what reads clicks (conversions, attribution, the mirror, the clicks API). Returns its id.
 */
export async function insertClick(db: Queryable, overrides: ClickOverrides): Promise<string> {
  const { ipHasher, ...click } = overrides;
  const id = click.id ?? newId();
  const createdAt = new Date(click.createdAt ?? Date.now());
  const ip = click.ip ?? null;
  await db.query(
    `INSERT INTO clicks (id, org_id, link_id, campaign_id, created_at, gclid, gbraid, wbraid, campaign_ext_id, ad_group_ext_id,
       creative_id, keyword, match_type, network, device, next_hop_url, transparent_param_present, force_transparent, is_bot,
       latency_ms, ip, ip_day_hash, household_hash, user_agent, os_family, os_version, device_type, drop_reason,
       risk_score, risk_reasons, country, region, referer, route)
     VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
       $24, $25, $26, $27, $28, $29, $30::jsonb, $31, $32, $33, $34::text::jsonb)`,
    [
      id,
      click.orgId,
      click.linkId ?? null,
      click.campaignId ?? null,
      createdAt.toISOString(),
      click.gclid ?? null,
      click.gbraid ?? null,
      click.wbraid ?? null,
      click.campaignExtId ?? null,
      click.adGroupExtId ?? null,
      click.creativeId ?? null,
      click.keyword ?? null,
      click.matchType ?? null,
      click.network ?? null,
      click.device ?? null,
      click.nextHopUrl ?? 'https://shop.example.com/landing',
      click.transparentParamPresent ?? false,
      click.forceTransparent ?? false,
      click.isBot ?? false,
      click.latencyMs ?? null,
      ip,
      ip && ipHasher ? ipHasher.ipDay(ip, createdAt) : null,
      ip && ipHasher ? ipHasher.household(ip) : null,
      click.userAgent ?? null,
      click.osFamily ?? null,
      click.osVersion ?? null,
      click.deviceType ?? null,
      click.dropReason ?? null,
      click.riskScore ?? riskScore(click.riskReasons ?? []),
      JSON.stringify(click.riskReasons ?? []),
      click.country ?? null,
      click.region ?? null,
      click.referer ?? null,
      click.route ? JSON.stringify(click.route) : null,
    ],
  );
  return id;
}

/** The click id of a redirect's Location: its `svc_click_id` query parameter. */
export const clickIdOf = (location: string): string => new URL(location).searchParams.get('svc_click_id')!;

/** The click id anywhere in a Location, nested parameters included (a store's `referrer=`, a deep link). */
export const nestedClickIdOf = (location: string): string => decodeURIComponent(location).match(/svc_click_id=([0-9A-Z]{26})/)![1]!;

interface SettledClicks {
  db: Queryable;
  services: { clickPipeline: { flush(): Promise<void> } };
}

/**
 * A link's stored clicks, oldest first, once every click answered so far is written: redirects
 * are written behind their answers (CONTRIBUTING.md, "Tests").
 */
export async function storedClicksOf(t: SettledClicks, linkId: string): Promise<Record<string, any>[]> {
  await t.services.clickPipeline.flush();
  return t.db.query<Record<string, any>>('SELECT * FROM clicks WHERE link_id = $1 ORDER BY created_at', [linkId]);
}

/** How many clicks a link has stored, once every click answered so far is written. */
export async function storedClickCount(t: SettledClicks, linkId: string): Promise<number> {
  await t.services.clickPipeline.flush();
  return (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE link_id = $1', [linkId]))[0]!.n;
}
