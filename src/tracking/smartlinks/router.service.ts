import type { Queryable } from '../../db/db';
import { gone, HttpError, notFound } from '../../http/errors';
import { newId, type Clock } from '../../shared/ids';
import { clickControls } from '../redirect/click-query';
import type { CompiledLink } from '../redirect/link-cache/compiled-link';
import {
  journalClick,
  newClick,
  redirectTo,
  transparentRedirect,
  withLink,
  unavailable,
  type ClickDeps,
  type TrackingRequest,
} from '../redirect/tracking.service';
import { claimCapSlot } from './click-cap.repo';
import { interstitialPage } from './pages/interstitial';
import { isPreviewBot } from './preview-bots';
import { previewPage } from './pages/preview';
import { qrPage } from './pages/qr';
import { recordedRoute, routeVisit, type RouteOutcome, type Visitor } from './route';
import type { RouteDecision } from './rules/compile';
import { requestFacts, type FactNeeds, type FactSource, type IpFacts } from './rules/facts';
import { PASS_THROUGH_EXCLUDED, passThroughParams, withSmartClickId } from './targets';

export interface SmartLinkDeps extends ClickDeps {
  /** For the click cap's counter, the one database write a visit may wait for. */
  db: Queryable;
  ipIntel: IpFacts;
  clock: Clock;
}

export interface SmartLinkRequest extends TrackingRequest {
  acceptLanguage: string | null;
}

const NO_MATCH: RouteDecision = { ruleIndex: null, ruleName: null, action: null, variantIndex: null };
const NONE = { geo: false, place: false, ipType: false, os: false, inApp: false, language: false, params: false, time: false, variants: false };
/** What chooses between a 302 and an interstitial or QR page. */
const VISITOR_FACTS: FactNeeds = { ...NONE, os: true, inApp: true };

/**
 * GET /l/{slug}. A cached link without a click cap is answered without touching the database,
 * like /c: rules are compiled in the link cache and evaluated in memory; only a capped link
 * waits for its counter (docs/smart-link-serving.md, "Click cap").
 */
export function handleSmartLink(deps: SmartLinkDeps, slug: string, request: SmartLinkRequest): Response | Promise<Response> {
  return withLink(deps.linkCache, slug, request, (link) => visit(deps, link, request));
}

function visit(deps: SmartLinkDeps, link: CompiledLink | null, request: SmartLinkRequest): Response | Promise<Response> {
  const smart = link?.smart;
  if (!link || !smart) throw notFound('link not found');
  const controls = clickControls(request.url);
  if (controls.landingParam !== undefined || controls.force !== undefined) return transparentRedirect(deps, link, request, controls);
  const nowMs = deps.clock().getTime();
  if (smart.expiresAtMs !== null && nowMs >= smart.expiresAtMs) throw gone('link expired');
  const source = { linkId: link.id, ip: request.ip, userAgent: request.userAgent, acceptLanguage: request.acceptLanguage, query: controls.query, nowMs };
  const decision: RouteDecision = smart.rules ? smart.rules.evaluate(requestFacts(source, smart.rules.needs, deps.ipIntel)) : NO_MATCH;
  const visitor = visitorOf(source, deps.ipIntel, decision, smart.preview !== null);
  const outcome = routeVisit({ smart, destination: link.destination }, decision, visitor);
  if (smart.clickCap === null) return answer(deps, link, request, outcome, visitor, controls.query);
  // A cap counts answered visits, blocked ones too: exactly click_cap visits get an answer other than 410.
  return claimCapSlot(deps.db, link.id).then(
    (claimed) => {
      if (!claimed) throw gone('link click cap reached');
      return answer(deps, link, request, outcome, visitor, controls.query);
    },
    (error) => {
      if (error instanceof HttpError) throw error;
      console.error('smart link: claiming a cap slot failed', error);
      throw unavailable();
    },
  );
}

/** The user agent's facts a page choice needs, worked out only when the answer can be a page. */
export function visitorOf(source: FactSource, ipFacts: IpFacts, decision: RouteDecision, hasPreview: boolean): Visitor {
  const action = decision.action;
  const previewBot = hasPreview && source.userAgent !== null && isPreviewBot(source.userAgent);
  if (action === null || !('store' in action || 'deep_link' in action)) return { previewBot, inApp: false, os: null };
  const facts = requestFacts(source, VISITOR_FACTS, ipFacts);
  return { previewBot, inApp: facts.inApp, os: facts.os };
}

function answer(deps: SmartLinkDeps, link: CompiledLink, request: SmartLinkRequest, outcome: RouteOutcome, visitor: Visitor, query: string): Response {
  if (outcome.status === 403) throw new HttpError(403, { error: 'blocked' });
  if (outcome.status === 404) throw notFound('link not found');
  if (outcome.status === 410) throw gone('gone');
  const smart = link.smart!;
  const clickId = newId();
  const target = smart.passParams ? passThroughParams(outcome.target!, query, PASS_THROUGH_EXCLUDED) : outcome.target!;
  const location = withSmartClickId(target, clickId);
  const click = newClick(deps, link, request, clickId, location);
  click.route = recordedRoute(outcome);
  journalClick(deps, click, query, request);
  switch (outcome.page) {
    case null:
      return redirectTo(location);
    case 'interstitial':
      return interstitialPage({ target: location, fallback: withSmartClickId(outcome.fallback ?? target, clickId), os: visitor.os });
    case 'qr':
      return qrPage({ url: request.url, title: smart.preview?.title ?? undefined });
    case 'preview':
      return previewPage({ url: request.url, preview: smart.preview!, fallbackTitle: link.slug });
  }
}
