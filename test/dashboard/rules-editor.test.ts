import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { RULES_EDITOR_VOCABULARY } from '../../src/dashboard/web/pages/rules-editor';
import { parseRules } from '../../src/tracking/smartlinks/rules/parse-rules';
import type { RuleSet } from '../../src/tracking/smartlinks/rules/rules.model';
import { testApp } from '../support/app';
import { backends } from '../support/db';
import { insertLink } from '../support/fixtures';
import { expectSecurityHeaders } from '../support/http';
import { registerAccount } from '../protect/support';

/**
 * The rules editor's pure part (assets/rules-model.js, loaded here as the browser loads it) and
 * the link page that serves it. The browser side: test/e2e/dashboard.rules-editor.browser.test.ts.
 */
const editor = require('../../src/dashboard/web/assets/rules-model.js') as {
  whyNotShown(set: unknown, vocabulary: typeof RULES_EDITOR_VOCABULARY): string | null;
  describeRoute(answer: unknown, set: unknown): { decision: string; facts: string; ruleIndex: number | null };
  sameJson(a: unknown, b: unknown): boolean;
  missing(set: unknown, maxWeight: number): { path: string; message: string }[];
  fitsText(value: string): boolean;
  listText(values: string[]): string;
  readListText(text: string): string[];
};

// Text values as users type them: ordinary ones, and those a comma-separated box cannot hold.
const place = fc.constantFrom('Berlin', 'München', 'New York', 'Washington, D.C.', ' Paris', 'Rome ', 'São Paulo');
const paramValue = fc.constantFrom('news', 'mail', '*', '', 'a,b', 'x y', ' lead');
const url = fc.constantFrom('https://a.example.com/', 'https://shop.example.com/p?x=1', 'https://b.example.org/');
const conditions = fc.record(
  {
    country: fc.subarray(['US', 'ca', 'DE', 'gb', 'FR'], { minLength: 1 }),
    region: fc.array(place, { minLength: 1, maxLength: 3 }),
    city: fc.array(place, { minLength: 1, maxLength: 3 }),
    os: fc.subarray(['ios', 'ANDROID', 'desktop'], { minLength: 1 }),
    ip_type: fc.subarray(['residential', 'mobile', 'datacenter'], { minLength: 1 }),
    language: fc.subarray(['en', 'DE', 'fil'], { minLength: 1 }),
    in_app: fc.boolean(),
    params: fc.dictionary(fc.constantFrom('utm_source', 'gclid', 'ref', '__proto__', 'a b'), fc.array(paramValue, { minLength: 1, maxLength: 3 }), { minKeys: 1, maxKeys: 3 }),
    hours: fc.record({ from: fc.integer({ min: 0, max: 23 }), to: fc.integer({ min: 0, max: 23 }), tz: fc.constantFrom('UTC', 'europe/berlin', 'America/New_York') }, { requiredKeys: ['from', 'to'] }),
    weekdays: fc.subarray(['mon', 'TUE', 'sat', 'sun'], { minLength: 1 }),
  },
  { requiredKeys: [] },
);
const action = fc.oneof(
  url.map((u) => ({ url: u })),
  url.map((u) => ({ store: u })),
  fc.record({ deep_link: fc.constantFrom('myapp://product/42', 'intent://x#Intent;scheme=app;end', 'https://app.example.com/open'), fallback: url }, { requiredKeys: ['deep_link'] }),
  fc.array(fc.record({ url, weight: fc.integer({ min: 1, max: 1_000_000 }) }), { minLength: 1, maxLength: 10 }).map((variants) => ({ variants })),
  fc.constantFrom(403, 404, 410).map((block) => ({ block })),
);
const ruleSet = fc.record(
  {
    version: fc.constant(1),
    rules: fc.array(fc.record({ if: conditions, then: action }), { maxLength: 6 }).map((rules) => rules.map((rule, i) => (i % 2 ? { name: `rule-${i}`, ...rule } : rule))),
    fallback: url.map((u) => ({ url: u })),
  },
  { requiredKeys: ['version', 'rules'] },
);

/** Every text value of a stored rule set a comma-separated box would have to hold. */
function textValues(set: RuleSet): string[] {
  return set.rules.flatMap((rule) => [
    ...(['country', 'region', 'city', 'language'] as const).flatMap((name) => rule.if[name] ?? []),
    ...Object.values(rule.if.params ?? {}).flat(),
  ]);
}

describe("the rules editor's model", () => {
  test('the rows show every stored rule set but those with a text value a comma-separated box cannot give back', () => {
    const seen = { shown: 0, unshown: 0 };
    fc.assert(
      fc.property(ruleSet, (raw) => {
        const parsed = parseRules(JSON.parse(JSON.stringify(raw)));
        if (!parsed.ok) throw new Error(`the generator made a rule set the parser refuses: ${JSON.stringify(parsed.fieldErrors)}`);
        const stored = JSON.parse(JSON.stringify(parsed.value)) as RuleSet;
        const why = editor.whyNotShown(stored, RULES_EDITOR_VOCABULARY);
        const boxable = textValues(stored).every((value) => editor.fitsText(value));
        expect(why === null).toBe(boxable);
        seen[why === null ? 'shown' : 'unshown']++;
        if (why !== null) expect(why).toMatch(/^rule \d+: .*(empty, has a comma or blanks at an end)/);
        // A box's text gives back the values it was drawn from.
        for (const rule of stored.rules) {
          for (const values of [rule.if.country, rule.if.city, ...Object.values(rule.if.params ?? {})]) {
            if (values && values.every((value) => editor.fitsText(value))) expect(editor.readListText(editor.listText(values))).toEqual(values);
          }
        }
      }),
      { numRuns: 300 },
    );
    // Both answers were put to the test.
    expect(seen.shown).toBeGreaterThan(20);
    expect(seen.unshown).toBeGreaterThan(20);
  });

  test('what the rows cannot show is named: the shorthand, unknown keys, bad shapes, JSON the parser refuses', () => {
    const v = RULES_EDITOR_VOCABULARY;
    expect(editor.whyNotShown(null, v)).toBeNull();
    expect(editor.whyNotShown({ version: 1, rules: [] }, v)).toBeNull();
    expect(editor.whyNotShown([{ if: {}, then: { url: 'https://a.example/' } }], v)).toContain('shorthand');
    expect(editor.whyNotShown({ version: 1, rules: [], extra: 1 }, v)).toContain('unknown key');
    expect(editor.whyNotShown({ version: 2, rules: [] }, v)).toContain('version');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: { os: 'ios' }, then: { url: '' } }] }, v)).toBe('rule 1: os is not a list (the stored form is always one)');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: { os: ['windows'] }, then: { url: '' } }] }, v)).toContain('is not one of ios, android, desktop');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: { device: ['x'] }, then: { url: '' } }] }, v)).toContain('unknown condition');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: {}, then: { url: '', store: '' } }] }, v)).toContain('exactly one action');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: {}, then: { block: 451 } }] }, v)).toContain('block is not one of 403, 404, 410');
    expect(editor.whyNotShown({ version: 1, rules: [{ if: {}, then: { variants: [{ url: 'https://a.example/', weight: 1.5 }] } }] }, v)).toContain('weight');
    // Values the parser refuses but the rows can hold are shown: the server names them on save.
    expect(editor.whyNotShown({ version: 1, rules: [{ if: { country: ['UK'] }, then: { url: 'not a url' } }] }, v)).toBeNull();
  });

  test('the route test in words: the rule, what the visitor gets, the facts the rules saw', () => {
    const context = { country: 'DE', region: null, city: null, os: 'android', ip_type: null, in_app: false, language: ['de'], timezone: 'Europe/Berlin', hour: 9, weekday: 'wed', params: { utm_source: 'news' } };
    interface Decision { rule_index: number | null; rule_name: string | null; action: string; variant_index: number | null; page: string | null; status: number; location: string | null }
    const decision: Decision = { rule_index: null, rule_name: null, action: 'fallback', variant_index: null, page: null, status: 302, location: 'https://web.example.com/' };
    const words = (d: Partial<Decision>, set: unknown = null) => editor.describeRoute({ context, decision: { ...decision, ...d }, pool: null }, set).decision;
    expect(words({})).toBe('No rule takes this visit: the visitor is sent to the fallback URL https://web.example.com/.');
    expect(words({ action: 'destination' })).toBe("No rule takes this visit: the visitor is sent to the link's destination https://web.example.com/.");
    const set = { version: 1, rules: [{ if: {}, then: { variants: [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }] } }] };
    expect(words({ rule_index: 0, rule_name: 'ab', action: 'variants', variant_index: 1, location: 'https://b.example/' }, set)).toBe('Rule 1 \u201cab\u201d takes this visit: the visitor is sent to variant 2 of 2, https://b.example/.');
    expect(words({ rule_index: 2, action: 'block', status: 410, location: null })).toBe('Rule 3 takes this visit: the visit is refused with 410 Gone.');
    expect(words({ rule_index: 0, action: 'store', status: 200, page: 'qr', location: null })).toContain('shown a QR code to open on a phone');
    expect(words({ rule_index: 0, action: 'url', status: 404, location: null })).toBe('Rule 1 takes this visit, but the link is paused, so the visit gets 404 Not Found.');
    expect(words({ action: 'none', status: 404, location: null })).toBe('No rule takes this visit: there is no fallback URL and no destination, so the visit gets 404 Not Found.');
    const facts = editor.describeRoute({ context, decision, pool: null }, null).facts;
    expect(facts).toBe('The visit as the rules saw it: country DE, OS android, IP type unknown, not in an in-app browser, language de, 09:00 on Wednesday (Europe/Berlin), parameters utm_source=news.');
  });

  test('what a row still lacks is named under the API path, and a stored rule set lacks nothing', () => {
    const set = {
      version: 1,
      rules: [
        { if: { country: [], os: [], params: { '': ['*'], ref: [] }, hours: { from: 9, to: 17, tz: ' ' } }, then: { url: '' } },
        { if: {}, then: { variants: [{ url: '', weight: 0 }, { url: 'https://b.example/', weight: 2.5 }] } },
        { if: {}, then: { deep_link: '' } },
      ],
    };
    expect(editor.missing(set, 1_000_000)).toEqual([
      { path: 'rules.rules.0.if.country', message: 'give at least one value' },
      { path: 'rules.rules.0.if.os', message: 'pick at least one' },
      { path: 'rules.rules.0.if.params', message: 'give the parameter a name' },
      { path: 'rules.rules.0.if.params.ref', message: 'give at least one value (* for any)' },
      { path: 'rules.rules.0.if.hours.tz', message: 'give a time zone such as Europe/Berlin or UTC' },
      { path: 'rules.rules.0.then.url', message: 'give the URL' },
      { path: 'rules.rules.1.then.variants.0.url', message: 'give the URL' },
      { path: 'rules.rules.1.then.variants.0.weight', message: 'must be a whole number from 1 to 1000000' },
      { path: 'rules.rules.1.then.variants.1.weight', message: 'must be a whole number from 1 to 1000000' },
      { path: 'rules.rules.2.then.deep_link', message: 'give the deep link, such as myapp://product/42' },
    ]);
    fc.assert(
      fc.property(ruleSet, (raw) => {
        const parsed = parseRules(raw);
        expect(parsed.ok && editor.missing(JSON.parse(JSON.stringify(parsed.value)), 1_000_000)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  test('an edit undone is the stored rule set again, whatever order its keys took', () => {
    expect(editor.sameJson({ name: 'a', if: { os: ['ios'] }, then: { url: 'u' } }, { if: { os: ['ios'] }, then: { url: 'u' }, name: 'a' })).toBe(true);
    expect(editor.sameJson({ if: { os: ['ios', 'android'] } }, { if: { os: ['android', 'ios'] } })).toBe(false);
    expect(editor.sameJson({ rules: [] }, { rules: [], fallback: { url: 'u' } })).toBe(false);
    expect(editor.sameJson(null, undefined)).toBe(false);
  });
});

for (const backend of backends()) {
  describe(`the link page's rules editor on ${backend.name}`, async () => {
    const db = await backend.create();
    const t = await testApp(db, {}, { workers: false });
    const get = (path: string, cookie?: string) => t.request(path, { headers: cookie ? { cookie } : {} });

    test("a smart link's page loads the editor with the stored rules as text, and the schema's vocabulary", async () => {
      const me = await registerAccount(t);
      const { linkId } = await insertLink(db, me.orgId, { slug: 'smart-page', kind: 'smart' });
      const rules = { version: 1, rules: [{ name: '</textarea><script>alert(1)</script>', if: { os: ['ios'] }, then: { url: 'https://ios.example.com/' } }] };
      await db.query('UPDATE links SET rules = $1 WHERE id = $2', [JSON.stringify(rules), linkId]);
      const res = await get(`/links/${linkId}`, me.cookie);
      expect(res.status).toBe(200);
      const page = await res.text();
      for (const script of ['rules-model', 'rules-rows', 'rules-editor']) expect(page).toMatch(new RegExp(`<script src="/assets/${script}\\.js\\?v=[\\w-]+" defer></script>`));
      expect(page).toMatch(/<link rel="stylesheet" href="\/assets\/rules-editor\.css\?v=[\w-]+">/);
      expect(page).not.toContain('<script>alert(1)</script>');
      const box = /<textarea[^>]*name="rules"[^>]*>([^<]*)<\/textarea>/.exec(page)![1]!;
      expect(JSON.parse(box.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&#39;', "'").replaceAll('&amp;', '&'))).toEqual(rules);
      const vocabulary = JSON.parse(/<script type="application\/json" id="link-settings-rules-vocabulary">(.*?)<\/script>/.exec(page)![1]!);
      expect(vocabulary).toEqual(JSON.parse(JSON.stringify(RULES_EDITOR_VOCABULARY)));
      expect(vocabulary.conditions).toEqual(['country', 'region', 'city', 'os', 'ip_type', 'language', 'in_app', 'params', 'hours', 'weekdays']);
      // The route test answers in the page's words, with the JSON folded away beside them.
      expect(page).toContain('data-success="show-route"');
      expect(page).toContain('id="route-test-json"');
    });

    test("a tracking link's page has no rules editor; another organization's smart link is not found", async () => {
      const me = await registerAccount(t);
      const them = await registerAccount(t);
      const tracking = await insertLink(db, me.orgId, { slug: 'plain-page' });
      const page = await (await get(`/links/${tracking.linkId}`, me.cookie)).text();
      expect(page).not.toContain('rules-editor');
      expect(page).not.toContain('name="rules"');
      const theirs = await insertLink(db, them.orgId, { slug: 'their-smart', kind: 'smart' });
      const foreign = await get(`/links/${theirs.linkId}`, me.cookie);
      expect(foreign.status).toBe(404);
      expect(await foreign.text()).not.toContain('rules-editor');
    });

    test("the editor's script and stylesheet are served from this origin, cached by ETag", async () => {
      for (const [path, type] of [['/assets/rules-model.js', 'text/javascript'], ['/assets/rules-rows.js', 'text/javascript'], ['/assets/rules-editor.js', 'text/javascript'], ['/assets/rules-editor.css', 'text/css']] as const) {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toStartWith(type);
        expectSecurityHeaders(res);
        expect((await t.request(path, { headers: { 'if-none-match': res.headers.get('etag')! } })).status).toBe(304);
      }
    });
  });
}
