import { MAX_KEY_RATE_LIMIT } from '../../config/environment';
import { apiForm, field } from './forms';
import { html, type Html } from './html';

/**
 * What a key's limit is, in words: its own, or what it gets without one (KEY_RATE_LIMIT, or the
 * per-IP limits only).
 */
export function limitText(own: number | null, deploymentDefault: number | null): string {
  if (own !== null) return `${own.toLocaleString('en-US')} a minute`;
  return deploymentDefault === null ? 'none (per-IP limits only)' : `default: ${deploymentDefault.toLocaleString('en-US')} a minute`;
}

/** The limit field of a key's create form: empty sends nothing (no limit of its own). */
export function newLimitField(form: string, deploymentDefault: number | null): Html {
  return field(form, {
    name: 'rate_limit_per_minute',
    label: 'Rate limit (requests a minute)',
    type: 'number',
    dataType: 'number',
    hint: `1 to ${MAX_KEY_RATE_LIMIT.toLocaleString('en-US')}, across every node; empty: ${limitText(null, deploymentDefault)}.`,
  });
}

/** A table cell with a key's limit and a form that changes it (empty removes the key's own). */
export function limitCell(options: { form: string; api: string; own: number | null; deploymentDefault: number | null; keyName: string }): Html {
  return html`<td><p class="small">${limitText(options.own, options.deploymentDefault)}</p>
${apiForm({ id: options.form, api: options.api, method: 'PATCH', submit: 'Set limit', success: 'reload', label: `Rate limit of ${options.keyName}` }, [
  field(options.form, { name: 'rate_limit_per_minute', label: 'Requests a minute', type: 'number', dataType: 'number', emptyIsNull: true, value: options.own, hint: 'Empty: no limit of its own.' }),
])}</td>`;
}
