import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRules } from '../../../src/smartlinks/rules/parse-rules';

/** Every rule set shown in docs/smart-links.md's schema part is one the parser accepts, so a reader can copy it. */
describe('docs/smart-links.md', () => {
  const page = readFileSync(join(import.meta.dir, '../../../docs/smart-links.md'), 'utf8');
  // The rule schema's part of the page; "Serving /l" below it shows answers, not rule sets.
  const text = page.slice(0, page.indexOf('\n## Serving /l'));
  const examples = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);

  test('shows at least the schema example and the five worked examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  test('every JSON example is a valid rule set', () => {
    for (const example of examples) {
      const parsed = parseRules(JSON.parse(example));
      expect(parsed.ok ? 'ok' : JSON.stringify(parsed.fieldErrors)).toBe('ok');
    }
  });

  test('the error example answers what the page says', () => {
    expect(parseRules([{ if: { country: ['US', 'UK'] }, then: { block: 451 } }])).toEqual({
      ok: false,
      fieldErrors: {
        'rules.rules.0.if.country': ['"UK" is not an ISO 3166-1 alpha-2 country code such as US or DE'],
        'rules.rules.0.then.block': ['must be 403, 404 or 410'],
      },
    });
  });
});
