import { Elysia } from 'elysia';
import { refusal } from '../http/documented';
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
import { MAX_REPORT_BYTES, readReportJson } from './report-body';
import { storeReport, type ReportsDeps } from './reports.service';
import { registerSource, type SourceDeps } from './source.service';
import { parseTriggerQuery, triggerRegistration } from './trigger.service';

export type PrivacySandboxDeps = SourceDeps & ReportsDeps;

/** For the OpenAPI document: what a report POST answers besides its 200 `{ok: true}`. */
const reportDetail = (summary: string, extra: Record<number, object> = {}) => ({
  summary,
  responses: {
    400: refusal('not JSON, not a report object, or nested too deep', 'ValidationError'),
    413: { description: `a body above ${MAX_REPORT_BYTES / 1024} KiB` },
    ...extra,
  },
});

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
      { query: RegisterSourceQuery, detail: { summary: 'Register an attribution source (a click or a view) in the browser' } },
    )
    .get(
      `${WELL_KNOWN_PREFIX}/register-trigger`,
      ({ query }) => registration({ name: TRIGGER_HEADER, value: JSON.stringify(triggerRegistration(parseTriggerQuery(query))) }),
      { query: RegisterTriggerQuery, detail: { summary: 'Register an attribution trigger (a conversion) in the browser' } },
    )
    .post(`${WELL_KNOWN_PREFIX}/report-event-attribution`, report('event'), { parse: readReportJson, detail: reportDetail('Receive an event-level attribution report') })
    .post(`${WELL_KNOWN_PREFIX}/report-aggregate-attribution`, report('aggregate'), { parse: readReportJson, detail: reportDetail('Receive an aggregatable attribution report') })
    .post(`${WELL_KNOWN_PREFIX}/debug/*`, report('debug'), { parse: readReportJson, detail: reportDetail('Receive a debug report', { 404: { description: 'a path under debug/ other than lowercase words, digits and `-`, joined by `/`' } }) });
}
