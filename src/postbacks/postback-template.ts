import { MACROS, type ConversionPayload, type Macro } from './postbacks.model';

const MACRO_TOKEN = /\{([^{}]*)\}/g;
const KNOWN = new Set<string>(MACROS);

/**
 * Problems with a destination URL template, empty when usable. Scheme, host and port must be
 * literal, or conversion data would choose where the request goes: rendering two sets of values and
 * comparing the parsed origins catches what a pattern would miss (backslashes read as slashes).
 */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(MACRO_TOKEN)) {
    if (!KNOWN.has(match[1]!)) problems.push(`unknown macro {${match[1]}}; known: ${MACROS.map((m) => `{${m}}`).join(' ')}`);
  }
  const authority = /^https?:\/\/([^/\\?#]*)/i.exec(template);
  if (!authority) return [...problems, 'must be an absolute http(s) URL'];
  if (authority[1] === '') return [...problems, 'must name a host'];
  let first: URL;
  let second: URL;
  try {
    first = new URL(renderTemplate(template, SAMPLES[0]));
    second = new URL(renderTemplate(template, SAMPLES[1]));
  } catch {
    return [...problems, 'must be an absolute http(s) URL'];
  }
  if (/[{}]/.test(authority[1]!) || first.origin !== second.origin) problems.push('macros are not allowed in the host');
  if (first.username !== '' || first.password !== '') problems.push('credentials in the URL are not supported; use the secret to authenticate');
  return problems;
}

const sample = (tag: string): ConversionPayload => ({
  id: `${tag}-id`,
  event: `${tag}-event`,
  click_id: `${tag}-click`,
  gclid: `${tag}-gclid`,
  campaign_id: `${tag}-campaign`,
  value: tag.length,
  currency: 'USD',
  order_id: `${tag}-order`,
  matched: true,
  source: 'api',
  created_at: new Date(0).toISOString(),
});
const SAMPLES = [sample('a'), sample('bb')] as const;

function macroValue(payload: ConversionPayload, macro: Macro): string {
  switch (macro) {
    case 'conversion_id':
      return payload.id;
    case 'value':
      return payload.value === null ? '' : String(payload.value);
    default: {
      const value = payload[macro];
      return value ?? '';
    }
  }
}

/** Replaces every known macro with its URL-encoded value; a missing value becomes empty. */
export function renderTemplate(template: string, payload: ConversionPayload): string {
  return template.replace(MACRO_TOKEN, (token, name: string) =>
    KNOWN.has(name) ? encodeURIComponent(macroValue(payload, name as Macro)) : token,
  );
}
