import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Elysia } from 'elysia';
import { TRANSPARENT_GIF } from '../../tracking/tracking.model';

/**
 * The web app's static files, read once at boot: its own script and stylesheet, the smart-link
 * rules editor's (loaded by the link page only), and uPlot from
 * node_modules. Nothing is loaded from another host (docs/dashboard.md, "Security").
 */
const FILES = {
  '/assets/app.js': { path: new URL('./assets/app.js', import.meta.url).pathname, type: 'text/javascript; charset=utf-8' },
  '/assets/app.css': { path: new URL('./assets/app.css', import.meta.url).pathname, type: 'text/css; charset=utf-8' },
  '/assets/rules-model.js': { path: new URL('./assets/rules-model.js', import.meta.url).pathname, type: 'text/javascript; charset=utf-8' },
  '/assets/rules-rows.js': { path: new URL('./assets/rules-rows.js', import.meta.url).pathname, type: 'text/javascript; charset=utf-8' },
  '/assets/rules-editor.js': { path: new URL('./assets/rules-editor.js', import.meta.url).pathname, type: 'text/javascript; charset=utf-8' },
  '/assets/rules-editor.css': { path: new URL('./assets/rules-editor.css', import.meta.url).pathname, type: 'text/css; charset=utf-8' },
  '/assets/uplot.js': { path: Bun.resolveSync('uplot/dist/uPlot.iife.min.js', import.meta.dir), type: 'text/javascript; charset=utf-8' },
  '/assets/uplot.css': { path: Bun.resolveSync('uplot/dist/uPlot.min.css', import.meta.dir), type: 'text/css; charset=utf-8' },
} as const;

export type AssetPath = keyof typeof FILES;

interface Asset {
  bytes: Uint8Array;
  type: string;
  etag: string;
}

function load(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [route, file] of Object.entries(FILES)) {
    const bytes = new Uint8Array(readFileSync(file.path));
    assets.set(route, { bytes, type: file.type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` });
  }
  return assets;
}

/** The URL a page links to: versioned by content, so a new release is fetched at once. */
export function assetUrl(path: AssetPath): string {
  return `${path}?v=${ASSETS.get(path)!.etag.slice(1, 9)}`;
}

const ASSETS = load();

export function assetsRoutes() {
  // Browsers ask every host for /favicon.ico (a landing page on this host, a JSON answer): a
  // transparent pixel spares them the 404. The app's own pages name no icon at all.
  let app = new Elysia({ name: 'dashboard-assets' }).get(
    '/favicon.ico',
    () => new Response(TRANSPARENT_GIF, { headers: { 'Content-Type': 'image/gif', 'Cache-Control': 'public, max-age=86400' } }),
    { detail: { tags: ['Web app'], summary: 'A transparent icon', responses: { 200: { description: 'a 1x1 GIF', content: { 'image/gif': {} } } } } },
  );
  for (const [path, asset] of ASSETS) {
    app = app.get(
      path,
      ({ request }) => {
        const headers = { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400', ETag: asset.etag };
        if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
        return new Response(asset.bytes, { headers });
      },
      { detail: { tags: ['Web app'], summary: `The web app's ${path.endsWith('.js') ? 'script' : 'stylesheet'} ${path.slice('/assets/'.length)}`, responses: { 200: { description: 'the file', content: { [asset.type.split(';')[0]!]: {} } } } } },
    ) as unknown as typeof app;
  }
  return app;
}
