import type { PageSignals } from './beacon';
import { randomId, systemClock } from '../../core/src';
import { fingerprintHash } from './fingerprint';
import type { SdkEnv } from './sdk';
import type { KeyValue } from './storage';

/** localStorage when the page may use it (it throws in some private modes and sandboxed frames). */
function localStorageOrNull(): KeyValue | null {
  try {
    const storage = window.localStorage;
    const probe = '__svc_sdk_probe__';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    return null;
  }
}

function listen(target: EventTarget, type: string, listener: () => void): () => void {
  target.addEventListener(type, listener);
  return () => target.removeEventListener(type, listener);
}

function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

function languages(): string | undefined {
  const list = navigator.languages && navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return list.filter(Boolean).join(',') || undefined;
}

const scrollable = () => document.documentElement.scrollHeight - window.innerHeight;
/** The deepest scroll of this page view in percent, followed from the first configure on (one listener per page). */
let deepest: number | undefined;

function followScroll(): void {
  if (deepest !== undefined) return;
  deepest = 0;
  window.addEventListener(
    'scroll',
    () => {
      const room = scrollable();
      if (room > 0) deepest = Math.max(deepest ?? 0, Math.min(100, (100 * window.scrollY) / room));
    },
    { passive: true },
  );
}

/** The browser's side of the beacon. */
function pageSignals(): PageSignals {
  followScroll();
  const screenSize = () => (window.screen ? `${window.screen.width}x${window.screen.height}` : undefined);
  return {
    screen: screenSize,
    timezone: timeZone,
    languages,
    webdriver: () => navigator.webdriver === true,
    touch: () => (navigator.maxTouchPoints || 0) > 0,
    scrollDepth: () => (scrollable() > 0 ? deepest : undefined),
    fingerprint: () =>
      fingerprintHash([
        navigator.userAgent,
        languages(),
        navigator.platform,
        navigator.hardwareConcurrency,
        (navigator as Navigator & { deviceMemory?: number }).deviceMemory,
        screenSize(),
        window.screen && window.screen.colorDepth,
        window.devicePixelRatio,
        timeZone(),
        navigator.maxTouchPoints,
      ]),
  };
}

/** The SDK's environment in a browser page. */
export function browserEnv(): SdkEnv {
  return {
    storage: localStorageOrNull(),
    clock: systemClock,
    fetch: (url, init) => fetch(url, init),
    random: Math.random,
    newId: randomId,
    href: () => window.location.href,
    locale: () => navigator.language || undefined,
    hooks: {
      onHide: (listener) => {
        const offVisibility = listen(document, 'visibilitychange', () => {
          if (document.visibilityState === 'hidden') listener();
        });
        const offPagehide = listen(window, 'pagehide', listener);
        return () => {
          offVisibility();
          offPagehide();
        };
      },
      onShow: (listener) =>
        listen(document, 'visibilitychange', () => {
          if (document.visibilityState === 'visible') listener();
        }),
      onOnline: (listener) => listen(window, 'online', listener),
    },
    signals: pageSignals(),
    // A string goes as text/plain, which needs no CORS preflight; the beacon endpoint reads it as JSON.
    sendBeacon: (url, body) => {
      if (navigator.sendBeacon && navigator.sendBeacon(url, body)) return;
      void fetch(url, { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'text/plain' } }).catch(() => {});
    },
    warn: (message, detail) => {
      if (typeof console !== 'undefined') console.warn(message, detail);
    },
  };
}
