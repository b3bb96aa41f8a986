import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClickRoute } from '../../../../src/clicks/clicks.model';
import { parseRules } from '../../../../src/tracking/smartlinks/rules/parse-rules';

const DOCS = join(import.meta.dir, '../../../../docs');
const jsonExamples = (page: string) =>
  [...readFileSync(join(DOCS, page), 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!);

/** Every rule set shown in docs/smart-links.md (the rule schema) is one the parser accepts, so a reader can copy it. */
describe('docs/smart-links.md', () => {
  const examples = jsonExamples('smart-links.md');

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

/**
 * docs/smart-link-serving.md shows answers, not rule sets (a click's route, a route test answer),
 * so its examples are checked as JSON and as what they show, not by the rule parser.
 */
describe('docs/smart-link-serving.md', () => {
  const examples = jsonExamples('smart-link-serving.md').map((example) => JSON.parse(example) as Record<string, unknown>);

  test('the route example is a click route as the click export answers it', () => {
    const routes = examples.filter((example) => 'rule_index' in example);
    expect(routes).toHaveLength(1);
    expect([...Value.Errors(ClickRoute, routes[0])].map((error) => `${error.path} ${error.message}`)).toEqual([]);
  });

  test('the route test answer shows the context, a decision with a click route in it, and the pool', () => {
    const answers = examples.filter((example) => 'decision' in example);
    expect(answers).toHaveLength(1);
    expect(Object.keys(answers[0]!).sort()).toEqual(['context', 'decision', 'pool']);
    const { status, location, ...route } = answers[0]!.decision as Record<string, unknown>;
    expect([...Value.Errors(ClickRoute, route)].map((error) => `${error.path} ${error.message}`)).toEqual([]);
    expect(status).toBe(302);
    expect(typeof location).toBe('string');
  });

  test('shows nothing else: a rule set shown there would escape the rule parser check above', () => {
    expect(examples.filter((example) => !('rule_index' in example) && !('decision' in example))).toEqual([]);
  });
});
