/** The spec's SDK consent states (interface.md, "SDK consent status"). */
export type ConsentStatus = 'pending' | 'granted' | 'denied';
export type ConsentDecision = 'granted' | 'denied';

/**
 * The status at configure. A decision the user made (persisted by setConsent) always wins;
 * without one, `requireConsent` starts at pending, and its absence at granted.
 */
export function initialConsent(requireConsent: boolean, stored: unknown): ConsentStatus {
  if (stored === 'granted' || stored === 'denied') return stored;
  return requireConsent ? 'pending' : 'granted';
}

/** What a decision changes, from any status to any (later decisions replace earlier ones). */
export function consentChange(from: ConsentStatus, to: ConsentDecision): { start: boolean; forget: boolean } {
  return { start: to === 'granted' && from !== 'granted', forget: to === 'denied' && from !== 'denied' };
}
