import { html, type Html } from './html';

/**
 * Forms the script sends as JSON to the session API (assets/app.js): every control has a label,
 * a hint and an error slot tied to it with aria-describedby; the API's field errors land in the
 * slot of the field they name, the rest in the form's own alert.
 */
export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'date' | 'search' | 'checkbox';
  /** A checkbox's state as rendered. */
  checked?: boolean;
  value?: string | number | null;
  required?: boolean;
  hint?: string;
  placeholder?: string;
  autocomplete?: string;
  /** How the script sends the value: text by default; csv: an array of objects, one a line, keyed by `columns`; lines: an array of the non-blank lines. */
  dataType?: 'number' | 'json' | 'csv' | 'lines';
  /** The columns of a csv value, comma-separated; `rate:number` sends that column as a number. */
  columns?: string;
  /** An empty value is sent as null rather than left out. */
  emptyIsNull?: boolean;
  /** A select's options, value and label. */
  options?: readonly (readonly [string, string])[];
  /** A textarea, with this many rows. */
  rows?: number;
  /** A textarea's example: an "Insert example" button puts it in the box; it is never the value. */
  example?: string;
  /** An error the server found (a GET form's), shown in the field's slot on arrival. */
  error?: string | null;
}

export function field(form: string, options: FieldOptions): Html {
  const id = `${form}-${options.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const described = [options.hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  const common = html`id="${id}" name="${options.name}" aria-describedby="${described}"${options.required ? html` required` : ''}${
    options.dataType ? html` data-type="${options.dataType}"` : ''
  }${options.columns ? html` data-columns="${options.columns}"` : ''}${options.emptyIsNull ? html` data-empty="null"` : ''}${options.error ? html` aria-invalid="true"` : ''}`;
  const control = options.options
    ? html`<select ${common}>${options.options.map(([value, label]) => html`<option value="${value}"${String(options.value ?? '') === value ? html` selected` : ''}>${label}</option>`)}</select>`
    : options.rows
      ? html`<textarea ${common} rows="${options.rows}" spellcheck="false">${options.value ?? ''}</textarea>`
      : options.type === 'checkbox'
        ? html`<input ${common} type="checkbox"${options.checked ? html` checked` : ''}>`
        : html`<input ${common} type="${options.type ?? 'text'}"${options.value !== undefined && options.value !== null ? html` value="${options.value}"` : ''}${
          options.placeholder ? html` placeholder="${options.placeholder}"` : ''
        }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}>`;
  const example = options.rows && options.example
    ? html`<div class="actions"><button type="button" class="secondary" data-insert-example="${id}" data-example="${options.example}">Insert example</button></div>`
    : '';
  // A checkbox goes before its label, as people expect to read it.
  const labelled = options.type === 'checkbox' ? html`${control}
<label for="${id}">${options.label}</label>` : html`<label for="${id}">${options.label}</label>
${control}`;
  return html`<div class="field${options.type === 'checkbox' ? ' check' : ''}">
${labelled}
${example}
${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
<p class="error" id="${id}-error" data-error-for="${options.name}"${options.error ? '' : html` hidden`}>${options.error ?? ''}</p>
</div>`;
}

export interface ApiFormOptions {
  id: string;
  /** The session API path the form sends to. */
  api: string;
  method?: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  submit: string;
  /** reload (default), redirect:<path>, show-json, or show:<field> (the answer's field into `result`). */
  success?: string;
  /** The element the answer is shown in, for show-json and show:<field>. */
  result?: string;
  /** Fields sent with every submission, beside the controls'. */
  body?: Record<string, unknown>;
  label?: string;
  /** Send only the controls whose value differs from the page's: an edit form changes only what the user changed. */
  changedOnly?: boolean;
}

export function apiForm(options: ApiFormOptions, controls: Html | Html[]): Html {
  return html`<form class="stack" id="${options.id}" data-api="${options.api}" data-method="${options.method ?? 'POST'}" data-success="${options.success ?? 'reload'}"${
    options.result ? html` data-result="${options.result}"` : ''
  }${options.body ? html` data-body="${JSON.stringify(options.body)}"` : ''}${options.label ? html` aria-label="${options.label}"` : ''}${options.changedOnly ? html` data-send="changed"` : ''}>
${controls}
<p class="error" role="alert" data-error-for="" hidden></p>
<div class="actions"><button type="submit">${options.submit}</button></div>
</form>`;
}
