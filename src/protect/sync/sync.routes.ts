import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { SyncSummary } from './sync.model';
import { syncProtect, type ProtectSyncDeps } from './sync.service';

/** POST /api/protect/sync: session only (the CSRF rule covers the path); no body. */
export function protectSyncRoutes(deps: AuthDeps & ProtectSyncDeps) {
  return new Elysia({ name: 'protect-sync' })
    .use(authPlugin(deps))
    .post('/api/protect/sync', ({ session }) => syncProtect(deps, { orgId: session.orgId, userId: session.userId }), {
      session: true,
      response: { 200: SyncSummary },
      detail: { summary: 'Push the IP blocklist to every active Google Ads campaign as negative IP criteria' },
    });
}
