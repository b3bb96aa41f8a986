/**
 * The visual rules editor of a smart link's page (docs/dashboard.md, "Rules editor"): the JSON
 * view, which is the form's `rules` control and so what a save sends, and beside it the place
 * where assets/rules-editor.js draws the rules as rows. The server renders the frame, the JSON
 * and the vocabulary of the rule schema; the scripts (rules-model.js, rules-rows.js,
 * rules-editor.js) draw the rows from the JSON and write every edit back into it.
 */
import {
  BLOCK_STATUSES,
  IP_TYPES,
  MAX_RULE_NAME_LENGTH,
  MAX_RULES,
  MAX_VARIANT_WEIGHT,
  MAX_VARIANTS,
  OPERATING_SYSTEMS,
  type RuleSet,
  WEEKDAYS,
} from '../../../tracking/smartlinks/rules/rules.model';
import { CONDITION_NAMES } from '../../../tracking/smartlinks/rules/parse-conditions';
import { assetUrl } from '../assets.routes';
import { field } from '../forms';
import { html, jsonBlock, type Html } from '../html';

/** Offered by the "Insert example" button; never the box's value. */
const EXAMPLE_RULES: RuleSet = {
  version: 1,
  rules: [{ name: 'ios', if: { os: ['ios'] }, then: { store: 'https://apps.apple.com/app/id123' } }],
  fallback: { url: 'https://shop.example.com' },
};

/** What the script needs to know of the schema, taken from the parser's own constants. */
export const RULES_EDITOR_VOCABULARY = {
  conditions: CONDITION_NAMES,
  os: OPERATING_SYSTEMS,
  ipTypes: IP_TYPES,
  weekdays: WEEKDAYS,
  blockStatuses: BLOCK_STATUSES,
  maxRules: MAX_RULES,
  maxVariants: MAX_VARIANTS,
  maxWeight: MAX_VARIANT_WEIGHT,
  maxNameLength: MAX_RULE_NAME_LENGTH,
};

/**
 * The rules section of the link settings form. The textarea keeps the name `rules` and the
 * page's text of the stored rules, so a save that touched neither view sends no rules.
 */
export function rulesEditor(form: string, rules: unknown): Html {
  const json = field(form, {
    name: 'rules',
    label: 'Rules (JSON)',
    rows: 18,
    dataType: 'json',
    emptyIsNull: true,
    value: rules === null || rules === undefined ? '' : JSON.stringify(rules, null, 2),
    example: JSON.stringify(EXAMPLE_RULES, null, 2),
    hint: 'The same rules as JSON (schema version 1, docs/smart-links.md); both views follow each other. Empty removes the rules; a save leaves them as they are unless you change them.',
  });
  return html`<section class="rules-editor" aria-labelledby="${form}-rules-title" data-rules-editor="${form}-rules">
<h3 id="${form}-rules-title">Rules</h3>
<p class="hint">Tried in order: the first rule whose conditions all hold decides. A visit no rule takes goes to the fallback URL, else to the destination.</p>
<div class="rules-views">
<div class="rules-visual">
<p class="rules-note" data-rules-note role="status" hidden></p>
<p class="muted small" data-rules-empty hidden>No rules yet: every visit goes to the fallback URL or the destination.</p>
<ol class="rule-list" data-rule-list aria-label="Rules, in the order they are tried"></ol>
<div class="actions"><button type="button" class="secondary" data-add-rule>Add rule</button></div>
<div class="field"><label for="${form}-rules-fallback">Fallback URL</label>
<input id="${form}-rules-fallback" type="url" data-rules-fallback aria-describedby="${form}-rules-fallback-hint" placeholder="https://shop.example.com">
<p class="hint" id="${form}-rules-fallback-hint">Where a visit no rule takes goes; empty: the link's destination.</p>
<p class="error" data-error-for="rules.fallback" hidden></p></div>
<p class="visually-hidden" aria-live="polite" data-rules-announce></p>
</div>
<div class="rules-json">${json}</div>
</div>
${jsonBlock(`${form}-rules-vocabulary`, RULES_EDITOR_VOCABULARY)}
<link rel="stylesheet" href="${assetUrl('/assets/rules-editor.css')}">
<script src="${assetUrl('/assets/rules-model.js')}" defer></script>
<script src="${assetUrl('/assets/rules-rows.js')}" defer></script>
<script src="${assetUrl('/assets/rules-editor.js')}" defer></script>
</section>`;
}
