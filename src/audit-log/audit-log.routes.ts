import { Elysia } from 'elysia';
import { authPlugin, type AuthDeps } from '../auth/auth.plugin';
import { documented } from '../http/documented';
import { PageOf } from '../http/pagination';
import { AuditEntry, AuditQuery } from './audit-log.model';
import { listAuditLog } from './audit-log.service';

/** The organization's audit log for the web app (session; every role reads it). */
export function auditLogRoutes(deps: AuthDeps) {
  const { db } = deps;
  return new Elysia({ name: 'audit-log' })
    .use(authPlugin(deps))
    .get('/api/dashboard/audit', ({ query, session }) => listAuditLog({ db }, session.orgId, query), {
      session: true,
      query: AuditQuery,
      detail: { summary: 'The audit log: who changed what and when, newest first', ...documented({ 200: ['a page of audit entries', PageOf(AuditEntry)] }) },
    });
}
