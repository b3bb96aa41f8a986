import { Elysia } from 'elysia';
import { realtimeSnapshot, type RealtimeDeps } from '../../analytics/realtime';
import { authPlugin, type AuthDeps } from '../../auth/auth.plugin';
import { RealtimeBody, wantsEventStream } from './realtime.model';
import type { RealtimeStreams } from './realtime-streams';

/**
 * GET /api/dashboard/realtime (session): the counters as JSON, or with `Accept: text/event-stream`
 * as a stream of them that ends when the client leaves or the node stops.
 */
export function realtimeRoutes(deps: AuthDeps & RealtimeDeps & { realtimeStreams: RealtimeStreams }) {
  return new Elysia({ name: 'dashboard-realtime' })
    .use(authPlugin(deps))
    .get(
      '/api/dashboard/realtime',
      ({ request, session }) => {
        if (!wantsEventStream(request.headers.get('accept'))) return realtimeSnapshot(deps, session.orgId);
        return new Response(deps.realtimeStreams.open(session.orgId, request.signal), {
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
        });
      },
      {
        session: true,
        response: { 200: RealtimeBody },
        detail: {
          summary: 'Realtime counters of the last 15 minutes',
          description: 'JSON, or with `Accept: text/event-stream` a server-sent event stream: an event `realtime` carrying the same object whenever it changes (at most once a second), and a comment line as heartbeat every 5 s.',
          responses: { 200: { description: 'the counters', content: { 'text/event-stream': { schema: { type: 'string', description: 'event: realtime / data: <the JSON object>' } } } } },
        },
      },
    );
}
