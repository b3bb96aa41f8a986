import { html, type Html } from '../dashboard/web/html';
import { framedPage } from '../dashboard/web/layout';
import { SECURITY_SCHEMES } from './openapi-document';

/** GET /docs: the OpenAPI document rendered on the server as one page, grouped by tag; no script. */

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function schemaBlock(label: string, schema: unknown): Html {
  if (!schema || (typeof schema === 'object' && Object.keys(schema).length === 0)) return html``;
  return html`<details><summary>${label}</summary><pre class="result">${JSON.stringify(schema, null, 2)}</pre></details>`;
}

function auth(security: Json[] | undefined): Html {
  if (!security || security.length === 0) return html`<p class="small">Auth: none</p>`;
  // An empty requirement makes the credential optional.
  const names = security.flatMap((requirement) => (Object.keys(requirement).length === 0 ? [''] : Object.keys(requirement)));
  return html`<p class="small">Auth: ${names.map((name, i) => html`${i > 0 ? ' or ' : ''}${name ? html`<a href="#auth-${name}">${name}</a>` : 'none'}`)}</p>`;
}

function operation(path: string, method: string, op: Json): Html {
  const parameters = (op.parameters ?? []) as Json[];
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
  return html`<div class="endpoint" id="${op.operationId}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${path}</code> <span class="muted">${op.summary ?? ''}</span></h3>
${op.description ? html`<p class="small">${op.description}</p>` : ''}
${auth(op.security)}
${parameters.length > 0
  ? html`<div class="table-box"><table><thead><tr><th scope="col">Parameter</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Schema</th></tr></thead><tbody>${parameters.map(
      (p) => html`<tr><td><code>${p.name}</code>${p.description ? html`<br><span class="muted small">${p.description}</span>` : ''}</td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td class="mono">${JSON.stringify(p.schema)}</td></tr>`,
    )}</tbody></table></div>`
  : ''}
${schemaBlock('Request body (application/json)', op.requestBody?.content?.['application/json']?.schema)}
<ul class="small">${responses.map(
  ([status, response]) => html`<li><strong>${status}</strong> ${response.description ?? ''}${
    response.content ? html` <span class="muted">(${Object.keys(response.content).join(', ')})</span>` : ''
  }${schemaBlock('schema', Object.values((response.content ?? {}) as Record<string, Json>)[0]?.schema)}</li>`,
)}</ul>
</div>`;
}

export function docsPage(document: Json): Html {
  const byTag = new Map<string, Html[]>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = (op.tags as string[] | undefined)?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operation(path, method, op));
    }
  }
  const tags = [...byTag.keys()].sort();
  const anchor = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return framedPage(
    { title: 'API reference', current: '/docs' },
    html`<p>${document.info.description} Version ${document.info.version}. The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${document.openapi}).</p>
<nav aria-label="Sections" class="panel"><ul>${tags.map((tag) => html`<li><a href="#${anchor(tag)}">${tag}</a> <span class="muted">(${byTag.get(tag)!.length})</span></li>`)}</ul></nav>
<section class="panel" aria-labelledby="auth-heading"><h2 id="auth-heading">Authentication</h2><dl>${Object.entries(SECURITY_SCHEMES).map(
      ([name, scheme]) => html`<dt id="auth-${name}"><code>${name}</code></dt><dd>${scheme.description}</dd>`,
    )}</dl></section>
${tags.map((tag) => html`<section class="panel" id="${anchor(tag)}"><h2>${tag}</h2>${byTag.get(tag)}</section>`)}`,
  );
}
