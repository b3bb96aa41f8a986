import { assetUrl } from './assets.routes';
import { Html, html } from './html';

/** The pages of the signed-in app, in the order the navigation lists them. */
export const NAVIGATION = [
  { path: '/', label: 'Overview' },
  { path: '/links', label: 'Links' },
  { path: '/apps', label: 'Apps' },
  { path: '/keys', label: 'API keys' },
  { path: '/campaigns', label: 'Campaigns' },
  { path: '/invalid-clicks', label: 'Invalid clicks' },
  { path: '/members', label: 'Members' },
  { path: '/audit', label: 'Audit log' },
  { path: '/settings', label: 'Settings' },
  { path: '/docs', label: 'API reference' },
] as const;

export type NavPath = (typeof NAVIGATION)[number]['path'];

function head(title: string, charts: boolean, script = true): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Attribution</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetUrl('/assets/app.css')}">
${charts ? html`<link rel="stylesheet" href="${assetUrl('/assets/uplot.css')}"><script src="${assetUrl('/assets/uplot.js')}" defer></script>` : ''}
${script ? html`<script src="${assetUrl('/assets/app.js')}" defer></script>` : ''}
</head>`;
}

function topBar(current: NavPath | null, signOut: boolean): Html {
  const nav = NAVIGATION.map((item) => html`<li><a href="${item.path}"${item.path === current ? html` aria-current="page"` : ''}>${item.label}</a></li>`);
  return html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">Attribution</a>
<nav aria-label="Main"><ul>${nav}</ul></nav>
${signOut ? html`<form data-api="/logout" data-method="POST" data-success="redirect:/login"><button class="link" type="submit">Sign out</button></form>` : ''}
</header>`;
}

/** A signed-in page: skip link, navigation with the current page marked, sign-out, the content under one h1. */
export function appPage(options: { title: string; current: NavPath | null; charts?: boolean }, content: Html): Html {
  return html`<html lang="en">
${head(options.title, options.charts ?? false)}
<body>
${topBar(options.current, true)}
<main id="main">
<h1>${options.title}</h1>
${content}
</main>
</body>
</html>`;
}

/**
 * A signed-in page as a member with `role` sees it. An analyst's page says it is read-only and
 * carries data-role on its body, which hides every control that writes (assets/app.css, "Roles"):
 * the pages are rendered the same for every role, and the API refuses an analyst's write anyway.
 */
export function forRole(page: Html, role: string): Html {
  if (role !== 'analyst') return page;
  const notice = '<p class="read-only-notice" role="note">You have read-only access (analyst): an owner can change your role under Members.</p>';
  return new Html(page.text.replace('<body>', '<body data-role="analyst">').replace('<main id="main">', `<main id="main">\n${notice}`));
}

/**
 * A page anyone may open that still belongs to the app (the API reference, "page not found"):
 * the app's bar and navigation, without sign-out (the page may be read signed out, and runs no
 * script), and a way back to the app above the title.
 */
export function framedPage(options: { title: string; current: NavPath | null }, content: Html): Html {
  return html`<html lang="en">
${head(options.title, false, false)}
<body>
${topBar(options.current, false)}
<main id="main">
<p class="back"><a href="/">← Back to the app</a></p>
<h1>${options.title}</h1>
${content}
</main>
</body>
</html>`;
}

/** A page outside the session (sign-in, sign-up): no navigation. */
export function publicPage(title: string, content: Html): Html {
  return html`<html lang="en">
${head(title, false)}
<body>
<main id="main" class="auth">
<h1>${title}</h1>
${content}
</main>
</body>
</html>`;
}
