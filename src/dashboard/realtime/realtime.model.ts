import { t } from 'elysia';

const Count = t.Integer({ minimum: 0 });

/** GET /api/dashboard/realtime as JSON, and each event of its stream (docs/dashboard.md, "Realtime"). */
export const RealtimeBody = t.Object({
  window_minutes: t.Literal(15),
  clicks: Count,
  installs: Count,
  conversions: Count,
  per_minute: t.Array(
    t.Object({ minute: t.String({ format: 'date-time' }), clicks: Count, installs: Count, conversions: Count }),
    { minItems: 15, maxItems: 15, description: 'oldest first; the last entry is the current minute' },
  ),
});
export type RealtimeBody = typeof RealtimeBody.static;

/** Whether the client asked for the event stream rather than the JSON object. */
export function wantsEventStream(accept: string | null): boolean {
  return accept !== null && accept.split(',').some((part) => part.split(';')[0]!.trim().toLowerCase() === 'text/event-stream');
}
