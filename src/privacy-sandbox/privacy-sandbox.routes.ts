import { Elysia } from 'elysia';
import { hostOf } from '../tracking/redirect/tracking.service';
import {
  ELIGIBLE_HEADER,
  RegisterSourceQuery,
  RegisterTriggerQuery,
  SOURCE_HEADER,
  TRIGGER_HEADER,
  WELL_KNOWN_PREFIX,
  type ReportKind,
} from './privacy-sandbox.model';
import { readReportJson } from './report-body';
import { storeReport, type ReportsDeps } from './reports.service';
import { registerSource, type SourceDeps } from './source.service';
import { parseTriggerQuery, triggerRegistration } from './trigger.service';

export type PrivacySandboxDeps = SourceDeps & ReportsDeps;

/** 200 with an empty body; registrations are answered per request, never from a cache. */
function registration(header?: { name: string; value: string }): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (header) headers[header.name] = header.value;
  return new Response(null, { status: 200, headers });
}

/**
 * The Attribution Reporting API's endpoints (spec, Growth; docs/privacy-sandbox.md), no auth. They
 * sit in the app, not among the native tracking routes: a browser calls them once per click, view
 * or conversion, far below the redirect's volume. Routed on every host, like /c.
 */
export function privacySandboxRoutes(deps: PrivacySandboxDeps) {
  const report = (kind: ReportKind) => ({ body, params }: { body: unknown; params: Record<string, string> }) =>
    storeReport(deps, { kind, debugPath: kind === 'debug' ? params['*'] ?? '' : null, body });
  return new Elysia({ name: 'privacy-sandbox' })
    .get(
      `${WELL_KNOWN_PREFIX}/register-source`,
      async ({ query, request }) => {
        const value = await registerSource(deps, {
          host: hostOf(request.url),
          link: query.link,
          campaign: query.campaign,
          eligible: request.headers.get(ELIGIBLE_HEADER),
        });
        return registration(value === null ? undefined : { name: SOURCE_HEADER, value });
      },
      { query: RegisterSourceQuery },
    )
    .get(
      `${WELL_KNOWN_PREFIX}/register-trigger`,
      ({ query }) => registration({ name: TRIGGER_HEADER, value: JSON.stringify(triggerRegistration(parseTriggerQuery(query))) }),
      { query: RegisterTriggerQuery },
    )
    .post(`${WELL_KNOWN_PREFIX}/report-event-attribution`, report('event'), { parse: readReportJson })
    .post(`${WELL_KNOWN_PREFIX}/report-aggregate-attribution`, report('aggregate'), { parse: readReportJson })
    .post(`${WELL_KNOWN_PREFIX}/debug/*`, report('debug'), { parse: readReportJson });
}
