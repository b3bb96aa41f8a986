/**
 * The page that gets a visitor out of an in-app browser (Instagram, Facebook, TikTok webviews)
 * and into the app or store: an Android intent, an iOS custom scheme or store link, tried on
 * load and offered as a button, with the fallback URL after a short wait.
 */
import { isPlayStoreUrl } from '../targets';
import { htmlPage, inlineSource, isNavigable, navigableHref } from './html';

export type VisitorOs = 'ios' | 'android' | 'desktop' | null;

export interface InterstitialInput {
  /** Where the visitor should end up (store, deep link or universal link), click id included. */
  target: string;
  /** An http(s) URL for when the app cannot be opened. */
  fallback: string;
  os: VisitorOs;
  /** The Android app that handles a custom-scheme target, when known. */
  androidPackage?: string;
}

const PLAY_STORE_PACKAGE = 'com.android.vending';
const ANDROID_PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const WEB_FALLBACK = /^https?:\/\//i;

/**
 * The Android intent URL that opens `target` outside the webview: `intent:` + the target without
 * its scheme and fragment, then `#Intent;scheme=...;package=...;S.browser_fallback_url=...;end`.
 * A Play Store page becomes `market://details?<its query>` in the Play Store app.
 */
export function intentUrl(target: string, fallback: string, androidPackage?: string): string {
  if (!WEB_FALLBACK.test(fallback)) throw new TypeError('the fallback must be an http(s) URL');
  let scheme: string;
  let data: string;
  let pkg = androidPackage !== undefined && ANDROID_PACKAGE.test(androidPackage) ? androidPackage : null;
  if (isPlayStoreUrl(target)) {
    const page = withoutFragment(target);
    const queryAt = page.indexOf('?');
    scheme = 'market';
    data = `//details${queryAt < 0 ? '' : page.slice(queryAt)}`;
    pkg = PLAY_STORE_PACKAGE;
  } else {
    const match = SCHEME.exec(target);
    if (!match || !isNavigable(target)) throw new TypeError('the target must be an absolute URL');
    scheme = match[1]!.toLowerCase();
    data = withoutFragment(target.slice(match[0].length));
  }
  const extras = [`scheme=${scheme}`, ...(pkg ? [`package=${pkg}`] : []), `S.browser_fallback_url=${encodeURIComponent(fallback)}`];
  return `intent:${data}#Intent;${extras.join(';')};end`;
}

/** An App Store page opens in the App Store app from a webview only by its own scheme. */
const APP_STORE = /^https?:\/\/(apps|itunes)\.apple\.com(?=[/?#:]|$)/i;

function iosOpenUrl(target: string): string {
  return APP_STORE.test(target) ? target.replace(/^https?:/i, 'itms-apps:') : target;
}

function withoutFragment(url: string): string {
  const hashAt = url.indexOf('#');
  return hashAt < 0 ? url : url.slice(0, hashAt);
}

/** Leaving the page (the app or store opened) cancels the fallback. */
const ESCAPE_SCRIPT = inlineSource(
  "(function(){var open=document.getElementById('open'),fallback=document.getElementById('fallback'),left=false;" +
    "function away(){left=true}document.addEventListener('visibilitychange',function(){if(document.hidden)away()});" +
    "window.addEventListener('pagehide',away);" +
    "setTimeout(function(){if(!left)window.location.replace(fallback.href)},2500);" +
    'window.location.href=open.href})();',
);

export function interstitialPage({ target, fallback, os, androidPackage }: InterstitialInput): Response {
  if (!WEB_FALLBACK.test(fallback)) throw new TypeError('the fallback must be an http(s) URL');
  const open = os === 'android' ? intentUrl(target, fallback, androidPackage) : os === 'ios' ? iosOpenUrl(target) : target;
  const webTarget = /^https?:/i.test(open);
  const note =
    os === 'ios' && webTarget
      ? '<p class="note">In Instagram, Facebook or TikTok, tap the ••• menu and choose “Open in browser” (or “Open in Safari”) so the app can open.</p>'
      : '<p class="note">If nothing happens, tap the button.</p>';
  const body =
    '<main><h1>Opening the app…</h1>' +
    `<p><a id="open" class="button" href="${navigableHref(open)}">Open the app</a></p>${note}` +
    `<p><a id="fallback" href="${navigableHref(fallback)}">Continue in the browser</a></p></main>`;
  return htmlPage({ title: 'Opening the app…', body, script: ESCAPE_SCRIPT });
}
