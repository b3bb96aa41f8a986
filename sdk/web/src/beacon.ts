/** The landing beacon's body (docs/protect.md, "The landing beacon"). */
export interface BeaconBody {
  click_id: string;
  fingerprint?: string;
  screen?: string;
  timezone?: string;
  languages?: string;
  webdriver?: boolean;
  touch?: boolean;
  dwell_ms?: number;
  scroll?: number;
}

/** What the page tells about itself; the browser's answers are in page.ts. */
export interface PageSignals {
  screen(): string | undefined;
  timezone(): string | undefined;
  languages(): string | undefined;
  webdriver(): boolean;
  touch(): boolean;
  /** The deepest scroll so far in percent, undefined when the page cannot scroll. */
  scrollDepth(): number | undefined;
  fingerprint(): string;
}

/** The beacon of one page view: what the page did between `shownAt` and `now`. */
export function beaconBody(clickId: string, signals: PageSignals, shownAt: number, now: number): BeaconBody {
  const body: BeaconBody = {
    click_id: clickId,
    fingerprint: signals.fingerprint(),
    webdriver: signals.webdriver(),
    touch: signals.touch(),
    dwell_ms: Math.max(0, Math.min(2_147_483_647, Math.round(now - shownAt))),
  };
  const screen = signals.screen();
  if (screen !== undefined && /^\d{1,5}x\d{1,5}$/.test(screen)) body.screen = screen;
  const timezone = signals.timezone();
  if (timezone) body.timezone = timezone.slice(0, 64);
  const languages = signals.languages();
  if (languages) body.languages = languages.slice(0, 256);
  const scroll = signals.scrollDepth();
  // A page too short to scroll reports no depth rather than 0 (which would read as no_scroll).
  if (scroll !== undefined) body.scroll = Math.max(0, Math.min(100, Math.round(scroll)));
  return body;
}
