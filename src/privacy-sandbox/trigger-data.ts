/**
 * Event names to the 3-bit `trigger_data` of event-level reports (docs/privacy-sandbox.md,
 * "Trigger data"). A click (navigation) source keeps all 3 bits; a view (event) source only the
 * lowest, so the odd values are the conversions that count for views.
 */
export const TRIGGER_DATA: Readonly<Record<string, number>> = {
  conversion: 1,
  lead: 2,
  purchase: 3,
  add_to_cart: 4,
  sign_up: 5,
  begin_checkout: 6,
  subscribe: 7,
};

/** Any other event name. */
export const OTHER_TRIGGER_DATA = 0;

/** The event a trigger without `event` reports, as /postback defaults it. */
export const DEFAULT_EVENT = 'conversion';

/** Names compare case-insensitively: `Purchase` is `purchase`. */
export function normaliseEvent(event: string | undefined): string {
  return (event ?? DEFAULT_EVENT).toLowerCase();
}

export function triggerDataOf(event: string): number {
  return Object.hasOwn(TRIGGER_DATA, event) ? TRIGGER_DATA[event]! : OTHER_TRIGGER_DATA;
}
