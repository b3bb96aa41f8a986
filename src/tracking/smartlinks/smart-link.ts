import { checkHttpUrl } from '../redirect/landing-url';
import type { LinkPreview } from './pages/preview';
import { compileRules, type CompiledRules } from './rules/compile';
import { parseRules } from './rules/parse-rules';

/** What /l needs of a smart link beyond what /c needs, checked and compiled once per cache entry. */
export interface SmartLink {
  /** null: the link has no rules (or stored rules no longer valid, logged), so every visit falls back. */
  rules: CompiledRules | null;
  /** The rule set's `fallback.url`, used when no rule matches. */
  fallback: string | null;
  expiresAtMs: number | null;
  clickCap: number | null;
  passParams: boolean;
  preview: Required<LinkPreview> | null;
}

/** The stored columns a smart link is compiled from (src/tracking/redirect/lookups.repo.ts). */
export interface SmartLinkColumns {
  id: string;
  rules: unknown;
  expires_at: Date | null;
  click_cap: number | null;
  pass_params: boolean;
  preview: unknown;
}

export function compileSmartLink(row: SmartLinkColumns): SmartLink {
  let rules: CompiledRules | null = null;
  if (row.rules !== null && row.rules !== undefined) {
    const parsed = parseRules(row.rules);
    // Written through the links API, rules are valid; a row that is not is served as if it had none.
    if (parsed.ok) rules = compileRules(parsed.value);
    else console.error(`smart link ${row.id}: stored rules do not match schema version 1; serving its fallback`, parsed.fieldErrors);
  }
  const fallback = rules?.set.fallback?.url;
  const checked = fallback ? checkHttpUrl(fallback) : null;
  return {
    rules,
    fallback: checked?.ok ? checked.url : null,
    expiresAtMs: row.expires_at ? row.expires_at.getTime() : null,
    clickCap: row.click_cap,
    passParams: row.pass_params === true,
    preview: previewOf(row.preview),
  };
}

function previewOf(value: unknown): Required<LinkPreview> | null {
  if (!value || typeof value !== 'object') return null;
  const { title, description, image } = value as Record<string, unknown>;
  const text = (field: unknown) => (typeof field === 'string' && field !== '' ? field : null);
  const preview = { title: text(title), description: text(description), image: text(image) };
  return preview.title || preview.description || preview.image ? preview : null;
}
