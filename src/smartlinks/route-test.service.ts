import type { Queryable } from '../db/db';
import { fieldError, notFound } from '../http/errors';
import { parseIp } from '../ipintel/address';
import { capReached } from '../tracking/smartlinks/click-cap.repo';
import { routeVisit, type RouteOutcome } from '../tracking/smartlinks/route';
import { visitorOf } from '../tracking/smartlinks/router.service';
import { requestFacts, zonedHourAndWeekday, type FactNeeds, type IpFacts, type RouteFacts } from '../tracking/smartlinks/rules/facts';
import { findSmartLinkForTest } from './route-test.repo';
import type { RouteTestBody } from './route-test.model';
import { compileSmartLink } from '../tracking/smartlinks/smart-link';
import { PASS_THROUGH_EXCLUDED, passThroughParams } from '../tracking/smartlinks/targets';

export interface RouteTestDeps {
  db: Queryable;
  ipIntel: IpFacts;
  clock: () => Date;
  /** The IP pool lookup of GET /api/dashboard/ippool/lookup, for the answer's `pool`. */
  lookupPool(orgId: string, ip: string): Promise<unknown>;
}

const EVERY_FACT: FactNeeds = { geo: true, place: true, ipType: true, os: true, inApp: true, language: true, params: true, time: true, variants: true };
const HOUR_MS = 3_600_000;

/**
 * POST /api/dashboard/route-test: what a visit with these facts would get from /l, by the same
 * code (routeVisit), recording no click and claiming no cap slot.
 */
export async function testRoute(deps: RouteTestDeps, orgId: string, body: RouteTestBody) {
  const row = await findSmartLinkForTest(deps.db, orgId, body.slug);
  if (!row) throw notFound('link not found');
  if (row.kind !== 'smart') throw fieldError('slug', 'is a tracking link: /c never runs rules; route tests need a smart link');
  if (body.ip !== undefined && !parseIp(body.ip)) throw fieldError('ip', 'must be an IPv4 or IPv6 address');
  const timezone = body.timezone ?? 'UTC';
  if (!validZone(timezone)) throw fieldError('timezone', 'must be an IANA time zone, e.g. Europe/Berlin');

  const smart = compileSmartLink(row);
  const nowMs = momentAt(timezone, body.hour, deps.clock().getTime());
  const source = { linkId: row.id, ip: body.ip ?? '', userAgent: body.ua ?? null, acceptLanguage: body.language ?? null, query: body.params?.replace(/^\?/, '') ?? '', nowMs };
  const facts: RouteFacts = { ...requestFacts(source, EVERY_FACT, deps.ipIntel) };
  if (body.country !== undefined) facts.country = body.country.toUpperCase();
  if (body.region !== undefined) facts.region = body.region;
  if (body.city !== undefined) facts.city = body.city;
  if (body.os !== undefined) facts.os = body.os;
  if (body.inApp !== undefined) facts.inApp = body.inApp === 'true';

  const decision = smart.rules ? smart.rules.evaluate(facts) : { ruleIndex: null, ruleName: null, action: null, variantIndex: null };
  const visitor = { ...visitorOf(source, deps.ipIntel, decision, smart.preview !== null), inApp: facts.inApp, os: facts.os };
  let outcome: RouteOutcome = routeVisit({ smart, destination: row.destination }, decision, visitor);
  if (row.status !== 'active') outcome = { ...outcome, status: 404 };
  else if ((smart.expiresAtMs !== null && nowMs >= smart.expiresAtMs) || (smart.clickCap !== null && (await capReached(deps.db, row.id)))) {
    outcome = { ...outcome, status: 410 };
  }
  const local = zonedHourAndWeekday(timezone, nowMs);
  return {
    context: {
      country: facts.country,
      region: facts.region,
      city: facts.city,
      os: facts.os,
      ip_type: facts.ipType,
      in_app: facts.inApp,
      language: facts.languages,
      timezone,
      hour: local.hour,
      weekday: local.weekday,
      params: Object.fromEntries(facts.params),
    },
    decision: {
      rule_index: outcome.ruleIndex,
      rule_name: outcome.ruleName,
      action: outcome.action,
      variant_index: outcome.variantIndex,
      page: outcome.status === 200 ? outcome.page : null,
      status: outcome.status,
      location: outcome.status === 302 && outcome.target ? (smart.passParams ? passThroughParams(outcome.target, source.query, PASS_THROUGH_EXCLUDED) : outcome.target) : null,
    },
    pool: body.ip !== undefined ? await deps.lookupPool(orgId, body.ip) : null,
  };
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Now, or the latest moment of the last 24 hours whose local hour in `zone` is `hour`. */
function momentAt(zone: string, hour: number | undefined, nowMs: number): number {
  if (hour === undefined) return nowMs;
  for (let back = 0; back < 24; back++) {
    const at = nowMs - back * HOUR_MS;
    if (zonedHourAndWeekday(zone, at).hour === hour) return at;
  }
  // Only a zone whose clocks skip this hour today gets here; the hour before it is the nearest.
  return nowMs;
}
