import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { createRepeatWindow } from '../../../src/tracking/risk/repeat-window';
import { RAPID_REPEAT, RISK_SIGNALS, riskScore } from '../../../src/tracking/risk/risk-signals';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import type { ClickRecord } from '../../../src/tracking/click.model';
import { GOOGLEBOT, IPHONE, rawClick } from '../enrich/click-fixture';

const weight = (name: string) => RISK_SIGNALS.find((signal) => signal.name === name)!.weight;
const RESIDENTIAL = '73.162.1.1';
const DATACENTER = '5.9.1.1';
const GOOGLEBOT_IP = '66.249.66.1';

const ingestion = () => createIngestion({ ipHasher: createIpHasher('click-signals-secret-0123456789abcdef') });
const at = (second: number) => new Date(Date.UTC(2026, 8, 2, 10, 0, second)).toISOString();
const click = (overrides: Partial<ClickRecord>) => rawClick({ ip: RESIDENTIAL, user_agent: IPHONE, ...overrides });

describe('click risk signals at enrichment', () => {
  test('a residential human click has no reasons and score 0', () => {
    const out = ingestion().enrich(click({}));
    expect(out.risk_reasons).toEqual([]);
    expect(out.risk_score).toBe(0);
  });

  test('datacenter_ip: an address of a hosting network, and not for a residential one', () => {
    const { enrich } = ingestion();
    const out = enrich(click({ id: 'dc', ip: DATACENTER }));
    expect(out.risk_reasons).toEqual(['datacenter_ip']);
    expect(out.risk_score).toBe(weight('datacenter_ip'));
    expect(enrich(click({ id: 'res', ip: RESIDENTIAL })).risk_reasons).not.toContain('datacenter_ip');
  });

  test('unverified_bot: a bot agent, or a crawler claim from outside its ranges; a human agent has none', () => {
    const { enrich } = ingestion();
    expect(enrich(click({ user_agent: 'python-requests/2.31.0' })).risk_reasons).toEqual(['unverified_bot']);
    const spoofed = enrich(click({ user_agent: GOOGLEBOT, ip: RESIDENTIAL }));
    expect(spoofed.risk_reasons).toEqual(['unverified_bot']);
    expect(spoofed.is_bot).toBe(false);
    expect(enrich(click({ user_agent: IPHONE })).risk_reasons).toEqual([]);
  });

  test('a verified crawler is isBot, score 0, no reasons, though its address is a datacenter', () => {
    const out = ingestion().enrich(click({ user_agent: GOOGLEBOT, ip: GOOGLEBOT_IP }));
    expect(out.is_bot).toBe(true);
    expect(out.risk_score).toBe(0);
    expect(out.risk_reasons).toEqual([]);
  });

  test(`rapid_repeat: the click past ${RAPID_REPEAT.limit} from one IP on one link within 60 s, not before`, () => {
    const { enrich } = ingestion();
    const flags = Array.from({ length: RAPID_REPEAT.limit + 2 }, (_, i) => enrich(click({ id: `r${i}`, created_at: at(i * 5) })).risk_reasons.includes('rapid_repeat'));
    expect(flags).toEqual([...Array(RAPID_REPEAT.limit).fill(false), true, true]);
  });

  test('rapid_repeat: the same count spread over more than 60 s, or over other links or IPs, is not', () => {
    const { enrich } = ingestion();
    const spread = Array.from({ length: 8 }, (_, i) => enrich(click({ id: `s${i}`, created_at: new Date(Date.UTC(2026, 8, 2, 10, 0) + i * 13_000).toISOString() })));
    expect(spread.some((c) => c.risk_reasons.includes('rapid_repeat'))).toBe(false);
    const links = Array.from({ length: 8 }, (_, i) => enrich(click({ id: `l${i}`, link_id: `link_${i}`, created_at: at(40) })));
    expect(links.some((c) => c.risk_reasons.includes('rapid_repeat'))).toBe(false);
    const ips = Array.from({ length: 8 }, (_, i) => enrich(click({ id: `i${i}`, ip: `73.162.1.${i + 10}`, created_at: at(40) })));
    expect(ips.some((c) => c.risk_reasons.includes('rapid_repeat'))).toBe(false);
  });

  test('reasons add up as the table says, in its order, capped at 100', () => {
    const { enrich } = ingestion();
    let out = click({});
    for (let i = 0; i <= RAPID_REPEAT.limit; i++) out = enrich(click({ id: `x${i}`, ip: DATACENTER, user_agent: 'curl/8.4.0', created_at: at(i) }));
    expect(out.risk_reasons).toEqual(['datacenter_ip', 'unverified_bot', 'rapid_repeat']);
    expect(out.risk_score).toBe(Math.min(100, weight('datacenter_ip') + weight('unverified_bot') + weight('rapid_repeat')));
  });
});

describe('the risk table', () => {
  test('a score is the capped sum of distinct reasons, whatever their order or repeats', () => {
    const names = RISK_SIGNALS.map((signal) => signal.name);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...names), { maxLength: 30 }), (reasons) => {
        const expected = Math.min(100, [...new Set(reasons)].reduce((sum, name) => sum + weight(name), 0));
        expect(riskScore(reasons)).toBe(expected);
        expect(riskScore([...reasons].reverse())).toBe(expected);
      }),
    );
  });

  test('the repeat window stays bounded for one key under a flood', () => {
    const window = createRepeatWindow({ limit: 5, windowMs: 60_000 });
    for (let i = 0; i < 50_000; i++) window.exceeds('k', i);
    expect(window.size()).toBe(1);
    expect(window.exceeds('k', 50_000)).toBe(true);
    expect(window.exceeds('other', 50_000)).toBe(false);
  });
});
