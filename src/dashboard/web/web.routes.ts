import { Elysia, t } from 'elysia';
import type { Mirror } from '../../analytics/mirror/mirror';
import { linkStats } from '../../analytics/link-stats/link-stats.service';
import { realtimeSnapshot, type RealtimeDeps } from '../../analytics/realtime';
import { listApps } from '../../apps/apps.service';
import { listApiKeyPage } from '../../auth/api-keys';
import { listAuditLog } from '../../audit-log/audit-log.service';
import { InviteTokenParams } from '../../members/members.model';
import { listMembers } from '../../members/members.service';
import { listInvites, readInvite } from '../../members/invites.service';
import { readCookie, SESSION_COOKIE, verifySession, type SessionPrincipal } from '../../auth/sessions';
import { CampaignParams } from '../../campaigns/campaigns.model';
import { getCampaign } from '../../campaigns/campaigns.service';
import type { Config } from '../../config/config';
import type { Db } from '../../db/db';
import { listFxRates } from '../../fx-rates/fx-rates.service';
import { HttpError } from '../../http/errors';
import { CursorQuery, isCursorRefusal } from '../../http/pagination';
import { LinkParams } from '../../links/links.model';
import { getLink, listLinks } from '../../links/links.service';
import { DEFAULT_EXPORT_DAYS as DEFAULT_INVALID_DAYS, parseExportDays } from '../../protect/export/export.model';
import { selectInvalidIps } from '../../protect/export/export.repo';
import { selectCampaignNames } from '../../campaigns/campaigns.repo';
import { readGoogleAds } from '../../protect/sync/integrations.service';
import { selectInvalidThreshold } from '../../protect/settings.repo';
import { getSettings } from '../../settings/settings.service';
import type { Clock } from '../../shared/ids';
import { html, htmlResponse, type Html } from './html';
import { appPage, forRole } from './layout';
import { linkQrFile, QR_FILE_TYPES } from './link-qr';
import { LinksPageQuery, linksView } from './links-view';
import { appsPage } from './pages/apps.page';
import { auditPage } from './pages/audit.page';
import { invitePage } from './pages/invite.page';
import { membersPage } from './pages/members.page';
import { CAMPAIGNS_QUERY_FIELDS, campaignsView } from './campaigns-view';
import { campaignPage } from './pages/campaign.page';
import { INVALID_CLICKS_PAGE_ROWS, invalidClicksPage } from './pages/invalid-clicks.page';
import { keysPage } from './pages/keys.page';
import { linkPage } from './pages/link.page';
import { overviewPage } from './pages/overview.page';
import { SETTINGS_RATES_SHOWN, settingsPage } from './pages/settings.page';
import { loginPage, registerPage } from './pages/sign-in.page';

export interface WebDeps extends RealtimeDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'sessionSecret' | 'trackingUrl' | 'trackingHost' | 'domainVerification' | 'keyRateLimit'>;
  mirror: Pick<Mirror, 'query' | 'catchUp'>;
}

const DAY_MS = 86_400_000;
/** Rows per page of the web app's long lists. */
export const WEB_PAGE_ROWS = 100;
const PageLinkQuery = t.Object({ cursor: CursorQuery });
const BAD_PAGE_LINK = { 400: { description: 'a cursor that is not this list\'s: a page saying so', content: { 'text/html': {} } } };

/** What each page declares for the API reference; `responses` adds to the page's own. */
const page = (summary: string, responses: Record<number, object> = {}) => ({
  detail: {
    tags: ['Web app'],
    summary,
    security: [{ session: [] }],
    responses: { 200: { description: 'the page', content: { 'text/html': {} } }, 302: { description: 'to /login without a session' }, ...responses },
  },
});

const qrFile = (format: keyof typeof QR_FILE_TYPES) =>
  page(`A link's QR code of its short URL, as a ${format.toUpperCase()} download`, {
    200: { description: 'the file', content: { [QR_FILE_TYPES[format]]: {} } },
    404: { description: 'no such link in the organization: a page saying so', content: { 'text/html': {} } },
  });

const seeOther = (location: string) => new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } });

/**
 * The web app's pages, rendered on the server from the same services as the API; the script
 * (assets/app.js) sends their forms to the session API. Without a session a page sends the
 * browser to /login, and the sign-in pages send a signed-in browser to the overview.
 */
export function webRoutes(deps: WebDeps) {
  const { db, config } = deps;
  const sessionOf = (request: Request) => verifySession(db, config.sessionSecret, readCookie(request.headers.get('cookie'), SESSION_COOKIE));
  const signedIn = async (request: Request, render: (session: SessionPrincipal) => Promise<Html | Response>): Promise<Response> => {
    const session = await sessionOf(request);
    if (!session) return seeOther('/login');
    try {
      const answer = await render(session);
      return answer instanceof Response ? answer : htmlResponse(forRole(answer, session.role));
    } catch (error) {
      // A page link whose cursor is not this list's (edited, or another organization's).
      if (isCursorRefusal(error)) return htmlResponse(appPage({ title: 'Not a page of this list', current: null }, html`<p>That page link is not valid here.</p><p><a href="${new URL(request.url).pathname}">First page</a></p>`), 400);
      // An unknown or foreign id reads as unknown, as in the API.
      if (error instanceof HttpError && error.status === 404) return htmlResponse(appPage({ title: 'Not found', current: null }, html`<p>${error.message}.</p><p><a href="/">Overview</a></p>`), 404);
      throw error;
    }
  };
  const signedOut = async (request: Request, render: () => Html) => ((await sessionOf(request)) ? seeOther('/') : htmlResponse(render()));
  const orDefault = <T>(read: () => T, fallback: () => T): { value: T; error: string | null } => {
    try {
      return { value: read(), error: null };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return { value: fallback(), error: 'The window given is not valid; showing the default.' };
    }
  };

  return new Elysia({ name: 'dashboard-web' })
    .get('/login', ({ request }) => signedOut(request, loginPage), { detail: { tags: ['Web app'], summary: 'Sign-in page', responses: { 200: { description: 'the page', content: { 'text/html': {} } } } } })
    .get('/register', ({ request }) => signedOut(request, registerPage), { detail: { tags: ['Web app'], summary: 'Sign-up page', responses: { 200: { description: 'the page', content: { 'text/html': {} } } } } })
    .get('/', ({ request }) =>
      signedIn(request, async (session) => {
        const [realtime, links] = await Promise.all([realtimeSnapshot(deps, session.orgId), listLinks(deps, session.orgId, { limit: 1 })]);
        return overviewPage(realtime, links.data.length > 0);
      }), page('Overview: realtime counters and the per-minute chart'))
    .get('/links', ({ request, query }) => signedIn(request, (session) => linksView(deps, session.orgId, query, WEB_PAGE_ROWS)), {
      query: LinksPageQuery,
      ...page('Links: create, pause and resume; search, filters, order and clicks per link, a page at a time', BAD_PAGE_LINK),
    })
    .get('/links/:id/qr.svg', ({ request, params }) => signedIn(request, async (session) => linkQrFile(await getLink(deps, session.orgId, params.id), 'svg')), {
      params: LinkParams,
      ...qrFile('svg'),
    })
    .get('/links/:id/qr.png', ({ request, params }) => signedIn(request, async (session) => linkQrFile(await getLink(deps, session.orgId, params.id), 'png')), {
      params: LinkParams,
      ...qrFile('png'),
    })
    .get('/links/:id', ({ request, params }) =>
      signedIn(request, async (session) => {
        const link = await getLink(deps, session.orgId, params.id);
        const [stats, names] = await Promise.all([linkStats(deps, session.orgId, link.id), selectCampaignNames(db, session.orgId, link.campaign_id ? [link.campaign_id] : [])]);
        return linkPage(link, { stats, campaignName: link.campaign_id ? (names.get(link.campaign_id) ?? null) : null });
      }), {
      params: LinkParams,
      ...page("A link's analytics (30 days by day, 48 hours by hour, breakdowns, installs, conversions, smart-link decisions), every setting, delete", { 404: { description: 'no such link in the organization: a page saying so', content: { 'text/html': {} } } }),
    })
    .get('/apps', ({ request, query }) => signedIn(request, async (session) => appsPage(await listApps(deps, session.orgId, { limit: WEB_PAGE_ROWS, cursor: query.cursor }), { first: query.cursor === undefined }, config.keyRateLimit)), {
      query: PageLinkQuery,
      ...page('Apps and their SDK keys, with their rate limits, a page at a time', BAD_PAGE_LINK),
    })
    .get('/keys', ({ request, query }) => signedIn(request, async (session) => keysPage(await listApiKeyPage(db, session.orgId, { limit: WEB_PAGE_ROWS, cursor: query.cursor }), { first: query.cursor === undefined }, config.keyRateLimit)), {
      query: PageLinkQuery,
      ...page('API keys: create, list by prefix with their rate limits, revoke; a page at a time', BAD_PAGE_LINK),
    })
    .get('/campaigns', ({ request, query }) => signedIn(request, (session) => campaignsView(deps, session.orgId, query)), {
      query: t.Object(Object.fromEntries(CAMPAIGNS_QUERY_FIELDS.map((name) => [name, t.Optional(t.String({ maxLength: 64 }))]))),
      ...page('Campaigns: the list with totals, create and edit, the breakdown, the cohorts and the pivot, with their CSVs'),
    })
    .get('/campaigns/:id', ({ request, params }) =>
      signedIn(request, async (session) => campaignPage(await getCampaign(deps, session.orgId, params.id), (await listApps(deps, session.orgId, { limit: 1000 })).data)), {
      params: CampaignParams,
      ...page('One campaign: edit, archive, restore', { 404: { description: 'an unknown or foreign campaign: a page saying so', content: { 'text/html': {} } } }),
    })
    .get('/invalid-clicks', ({ request, query }) =>
      signedIn(request, async (session) => {
        const days = orDefault(() => parseExportDays(query), () => DEFAULT_INVALID_DAYS).value;
        await deps.mirror.catchUp();
        const threshold = await selectInvalidThreshold(db, session.orgId);
        const since = new Date(deps.clock().getTime() - days * DAY_MS);
        const rows = await selectInvalidIps(deps.mirror, { orgId: session.orgId, since, threshold, after: null, limit: INVALID_CLICKS_PAGE_ROWS });
        const names = await selectCampaignNames(db, session.orgId, [...new Set(rows.map((row) => row.campaign_id).filter((id) => id !== ''))]);
        const googleAds = await readGoogleAds(deps, session.orgId);
        return invalidClicksPage({ rows, names, days, threshold, connected: googleAds.connected });
      }), {
      query: t.Object({ days: t.Optional(t.String({ maxLength: 8 })) }),
      ...page('Invalid clicks: the table, the CSV and the Google Ads sync'),
    })
    .get('/members', ({ request, query }) =>
      signedIn(request, async (session) => {
        const [members, invites] = await Promise.all([listMembers(deps, session.orgId, { limit: WEB_PAGE_ROWS, cursor: query.cursor }), listInvites(deps, session.orgId, { limit: WEB_PAGE_ROWS })]);
        return membersPage({ members, invites: invites.data, first: query.cursor === undefined, viewer: session });
      }), { query: PageLinkQuery, ...page('Members and their roles; owners invite, change roles and remove', BAD_PAGE_LINK) })
    .get('/audit', ({ request, query }) => signedIn(request, async (session) => auditPage(await listAuditLog(deps, session.orgId, { limit: WEB_PAGE_ROWS, cursor: query.cursor }), { first: query.cursor === undefined })), {
      query: PageLinkQuery,
      ...page('The audit log: who changed what and when, newest first, a page at a time', BAD_PAGE_LINK),
    })
    // No session needed: the link's token is the invitation.
    .get('/invite/:token', async ({ params }) => {
      const invite = await readInvite(deps, params.token);
      return htmlResponse(invitePage(params.token, invite), invite ? 200 : 404);
    }, {
      params: InviteTokenParams,
      detail: { tags: ['Web app'], summary: 'An invite link: set a password or sign in, and join', responses: { 200: { description: 'the page', content: { 'text/html': {} } }, 404: { description: 'a link used, withdrawn, expired or unknown: a page saying so', content: { 'text/html': {} } } } },
    })
    .get('/settings', ({ request }) =>
      signedIn(request, async (session) => {
        const [googleAds, threshold, reporting, rates] = await Promise.all([
          readGoogleAds(deps, session.orgId),
          selectInvalidThreshold(db, session.orgId),
          getSettings(deps, session.orgId),
          listFxRates(deps, session.orgId, { limit: SETTINGS_RATES_SHOWN }),
        ]);
        return settingsPage({ googleAds, threshold, reporting, rates: rates.data });
      }), page('Settings: reporting zone and currency, exchange rates, the Google Ads connection, the invalid-click threshold, password and sessions'));
}
