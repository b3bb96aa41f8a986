import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { documented } from '../http/documented';
import { strictBody } from '../http/strict-body';
import { PutSettingsBody, SettingsAnswer } from './settings.model';
import { getSettings, putSettings } from './settings.service';

const READ = { summary: "The organization's reporting time zone and currency", ...documented({ 200: ['the settings', SettingsAnswer] }) };
const WRITE = {
  summary: 'Change the reporting time zone or currency (the fields given)',
  ...documented({ 200: ['the settings after the change', SettingsAnswer], 400: ['an unknown zone, a code that is not three capital letters, or no field'] }),
};

/** The organization's reporting settings (docs/reports.md): API key under /api/v1, session for the dashboard. */
export function settingsRoutes(deps: AuthDeps) {
  const { db } = deps;
  return new Elysia({ name: 'settings' })
    .use(authPlugin(deps))
    .get('/api/v1/settings', ({ principal }) => getSettings({ db }, principal.orgId), { apiKey: true, detail: READ })
    .put('/api/v1/settings', ({ body, principal }) => putSettings({ db }, { orgId: principal.orgId, apiKeyId: principal.keyId }, body), {
      apiKey: true,
      body: PutSettingsBody,
      transform: strictBody(PutSettingsBody),
      detail: WRITE,
    })
    .get('/api/dashboard/settings', ({ session }) => getSettings({ db }, session.orgId), { session: true, detail: { ...READ, summary: `${READ.summary} (as GET /api/v1/settings)` } })
    .put('/api/dashboard/settings', ({ body, session }) => putSettings({ db }, { orgId: session.orgId, userId: session.userId }, body), {
      session: true,
      body: PutSettingsBody,
      transform: strictBody(PutSettingsBody),
      detail: { ...WRITE, summary: `${WRITE.summary} (as PUT /api/v1/settings)` },
    });
}
