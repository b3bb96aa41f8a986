import type { ClickRoute } from '../click.model';
import type { RouteDecision } from './rules/compile';
import type { SmartLink } from './smart-link';

/** The page a 200 answer shows instead of a 302 (docs/smart-link-serving.md, "Serving /l"). */
export type VisitPage = 'interstitial' | 'qr' | 'preview';

/** What a visit did: a rule's action, or the link's fallback or destination when no rule matched. */
export type RouteAction = 'url' | 'store' | 'deep_link' | 'variants' | 'block' | 'fallback' | 'destination' | 'none';

export interface RouteOutcome {
  status: 200 | 302 | 403 | 404 | 410;
  action: RouteAction;
  ruleIndex: number | null;
  ruleName: string | null;
  variantIndex: number | null;
  /** Where the visitor is sent (before the click id is added); null for 403/404/410. */
  target: string | null;
  /** Where an interstitial sends a visitor whose app did not open. */
  fallback: string | null;
  page: VisitPage | null;
}

/** The facts about the visitor that choose between a 302 and a page. */
export interface Visitor {
  previewBot: boolean;
  inApp: boolean;
  os: 'ios' | 'android' | 'desktop' | null;
}

/**
 * From the rules' decision to the answer: which target, and whether a page stands in for the 302.
 * Pure: /l and the route test both call it, so the test shows exactly what a visit would get.
 */
export function routeVisit(link: { smart: SmartLink; destination: string | null }, decision: RouteDecision, visitor: Visitor): RouteOutcome {
  const outcome: RouteOutcome = {
    status: 302,
    action: 'none',
    ruleIndex: decision.ruleIndex,
    ruleName: decision.ruleName,
    variantIndex: null,
    target: null,
    fallback: null,
    page: null,
  };
  const otherwise = link.smart.fallback ?? link.destination;
  const action = decision.action;
  if (action === null) {
    outcome.action = link.smart.fallback ? 'fallback' : link.destination ? 'destination' : 'none';
    outcome.target = otherwise;
  } else if ('block' in action) {
    outcome.action = 'block';
    outcome.status = action.block;
    return outcome;
  } else if ('url' in action) {
    outcome.action = 'url';
    outcome.target = action.url;
  } else if ('variants' in action) {
    outcome.action = 'variants';
    outcome.variantIndex = decision.variantIndex;
    outcome.target = action.variants[decision.variantIndex ?? 0]!.url;
  } else if ('store' in action) {
    outcome.action = 'store';
    outcome.target = action.store;
    outcome.fallback = otherwise ?? action.store;
  } else {
    outcome.action = 'deep_link';
    outcome.target = action.deep_link;
    outcome.fallback = action.fallback ?? otherwise;
  }
  if (outcome.target === null) {
    outcome.status = 404;
    return outcome;
  }
  if (visitor.previewBot && link.smart.preview) outcome.page = 'preview';
  else if (outcome.action === 'store' || outcome.action === 'deep_link') {
    if (visitor.inApp) outcome.page = 'interstitial';
    else if (visitor.os === 'desktop') outcome.page = 'qr';
  }
  if (outcome.page) outcome.status = 200;
  return outcome;
}

/** The route a smart-link click records (click export `route`); only answers that send the visitor on are clicks. */
export function recordedRoute(outcome: RouteOutcome): ClickRoute {
  const action = outcome.action;
  if (action === 'block' || action === 'none') throw new Error(`a ${action} answer records no click`);
  return { rule_index: outcome.ruleIndex, rule_name: outcome.ruleName, action, variant_index: outcome.variantIndex, page: outcome.page };
}
