import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { BlocklistEntry } from '../../../src/protect/sync/blocklist.repo';
import { criterionBlock, ipCriteriaQuery, isGoogleAdsCampaignId, rangeCovers, type IpCriterion } from '../../../src/protect/sync/google-ads/ip-criteria';
import { IP_EXCLUSIONS_PER_CAMPAIGN, planCampaign } from '../../../src/protect/sync/sync-plan';

const at = (minutesAgo: number) => new Date(Date.UTC(2026, 10, 20, 12, 0) - minutesAgo * 60_000);
const entry = (ip_block: string, score = 60, minutesAgo = 0): BlocklistEntry => ({ ip_block, score, last_seen: at(minutesAgo) });
let serial = 0;
const criterion = (ipAddress: string): IpCriterion => ({ resourceName: `customers/1/campaignCriteria/9~${++serial}`, ipAddress, block: criterionBlock(ipAddress) });
const blocks = (entries: readonly BlocklistEntry[]) => entries.map((item) => item.ip_block);

describe('planCampaign', () => {
  test('happy: an empty campaign gets the whole list, in priority order', () => {
    const list = [entry('45.1.1.1', 90), entry('45.1.1.2', 60), entry('2a00:1450:4001:81c::/64', 50)];
    const plan = planCampaign({ blocklist: list, existing: [], owned: new Set() });
    expect(blocks(plan.add)).toEqual(['45.1.1.1', '45.1.1.2', '2a00:1450:4001:81c::/64']);
    expect(plan).toMatchObject({ remove: [], kept: 0, skipped: 0 });
  });

  test('happy: what is already there, ours or theirs, is kept and not sent again', () => {
    const ours = criterion('45.1.1.1');
    const theirs = criterion('45.1.1.2/32');
    const plan = planCampaign({ blocklist: [entry('45.1.1.1'), entry('45.1.1.2'), entry('45.1.1.3')], existing: [ours, theirs], owned: new Set([ours.resourceName]) });
    expect(blocks(plan.add)).toEqual(['45.1.1.3']);
    expect(plan.remove).toEqual([]);
    expect(plan.kept).toBe(2);
  });

  test('happy: ours that left the list are removed; theirs never are, on the list or not', () => {
    const oursGone = criterion('45.9.9.9');
    const theirsOff = criterion('81.2.3.4');
    const plan = planCampaign({ blocklist: [entry('45.1.1.1')], existing: [oursGone, theirsOff], owned: new Set([oursGone.resourceName]) });
    expect(plan.remove).toEqual([oursGone]);
    expect(blocks(plan.add)).toEqual(['45.1.1.1']);
  });

  test('happy: an entry inside an advertiser’s range is kept as covered', () => {
    const theirs = [criterion('45.10.0.0/24'), criterion('2a00:1450:4001::/48')];
    const list = [entry('45.10.0.7'), entry('2a00:1450:4001:81c::/64'), entry('45.11.0.1')];
    const plan = planCampaign({ blocklist: list, existing: theirs, owned: new Set() });
    expect(blocks(plan.add)).toEqual(['45.11.0.1']);
    expect(plan.kept).toBe(2);
  });

  test('the cap: theirs take their places first, the top of the list fills the rest, the others are skipped', () => {
    const theirs = [criterion('81.0.0.1'), criterion('81.0.0.2'), criterion('not an address')];
    const list = [entry('45.0.0.1', 90), entry('45.0.0.2', 80), entry('45.0.0.3', 70), entry('45.0.0.4', 60)];
    const plan = planCampaign({ blocklist: list, existing: theirs, owned: new Set(), cap: 5 });
    expect(blocks(plan.add)).toEqual(['45.0.0.1', '45.0.0.2']);
    expect(plan).toMatchObject({ remove: [], kept: 0, skipped: 2 });
  });

  test('the cap: a full campaign trades its lowest entry of ours for a higher new one', () => {
    const ours = [criterion('45.0.0.1'), criterion('45.0.0.2'), criterion('45.0.0.3')];
    const list = [entry('45.0.0.9', 95), entry('45.0.0.1', 90), entry('45.0.0.2', 80), entry('45.0.0.3', 70)];
    const plan = planCampaign({ blocklist: list, existing: ours, owned: new Set(ours.map((item) => item.resourceName)), cap: 3 });
    expect(blocks(plan.add)).toEqual(['45.0.0.9']);
    expect(plan.remove).toEqual([ours[2]!]);
    expect(plan).toMatchObject({ kept: 2, skipped: 1 });
  });

  test('the cap: no room at all when theirs fill the campaign', () => {
    const theirs = Array.from({ length: IP_EXCLUSIONS_PER_CAMPAIGN }, (_, index) => criterion(`81.0.${index >> 8}.${index & 255}`));
    const plan = planCampaign({ blocklist: [entry('45.0.0.1')], existing: theirs, owned: new Set() });
    expect(plan).toMatchObject({ add: [], remove: [], kept: 0, skipped: 1 });
  });

  test('a second criterion of ours for one block is removed', () => {
    const first = criterion('45.0.0.1');
    const second = criterion('45.0.0.1/32');
    const plan = planCampaign({ blocklist: [entry('45.0.0.1')], existing: [first, second], owned: new Set([first.resourceName, second.resourceName]) });
    expect(plan.add).toEqual([]);
    expect(plan.remove).toEqual([second]);
    expect(plan.kept).toBe(1);
  });

  test('idempotent (property): once the plan is applied, planning again changes nothing', () => {
    const address = fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 15 })).map(([a, b]) => `45.0.${a}.${b}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ ip: address, score: fc.integer({ min: 50, max: 100 }), age: fc.integer({ min: 0, max: 1000 }) }), { selector: (item) => item.ip, maxLength: 40 }),
        fc.uniqueArray(address, { maxLength: 10 }),
        fc.integer({ min: 1, max: 30 }),
        (raw, theirAddresses, cap) => {
          const list = raw.map((item) => entry(item.ip, item.score, item.age)).sort((a, b) => b.score - a.score || b.last_seen.getTime() - a.last_seen.getTime());
          const theirs = theirAddresses.map(criterion);
          const first = planCampaign({ blocklist: list, existing: theirs, owned: new Set(), cap });
          const ours = first.add.map((item) => criterion(item.ip_block));
          const second = planCampaign({ blocklist: list, existing: [...theirs, ...ours], owned: new Set(ours.map((item) => item.resourceName)), cap });
          expect(second.add).toEqual([]);
          expect(second.remove).toEqual([]);
          expect(second.kept + second.skipped).toBe(list.length);
          expect(theirs.length + ours.length).toBeLessThanOrEqual(Math.max(cap, theirs.length));
        },
      ),
    );
  });
});

describe('IP criteria', () => {
  test('criterionBlock writes an address or range as the blocklist does', () => {
    expect(criterionBlock('45.1.2.3')).toBe('45.1.2.3');
    expect(criterionBlock('45.1.2.3/32')).toBe('45.1.2.3');
    expect(criterionBlock(' 45.1.2.9/24 ')).toBe('45.1.2.0/24');
    expect(criterionBlock('2A00:1450:4001:081C:0:0:0:1/64')).toBe('2a00:1450:4001:81c::/64');
    expect(criterionBlock('2a00:1450:4001:81c::/64')).toBe('2a00:1450:4001:81c::/64');
    expect(criterionBlock('2a00:1450::1/128')).toBe('2a00:1450::1');
    expect(criterionBlock('2a00:1450:4001::/48')).toBe('2a00:1450:4001::/48');
    expect(criterionBlock('::ffff:45.1.2.3')).toBe('45.1.2.3');
    expect(criterionBlock('::ffff:45.1.2.0/120')).toBe('45.1.2.0/24');
    for (const bad of ['', 'abc', '45.1.2.3/33', '45.1.2', '2a00::/129']) expect(criterionBlock(bad)).toBeNull();
  });

  test('rangeCovers: inside the range, the same family, never a wider block inside a narrower one', () => {
    expect(rangeCovers('45.10.0.0/24', '45.10.0.7')).toBe(true);
    expect(rangeCovers('45.10.0.0/24', '45.10.1.7')).toBe(false);
    expect(rangeCovers('45.10.0.7', '45.10.0.7')).toBe(true);
    expect(rangeCovers('2a00:1450:4001::/48', '2a00:1450:4001:81c::/64')).toBe(true);
    expect(rangeCovers('2a00:1450:4001:81c::/64', '2a00:1450:4001:81c::/64')).toBe(true);
    expect(rangeCovers('2a00:1450:4001:81c::1', '2a00:1450:4001:81c::/64')).toBe(false);
    expect(rangeCovers('::/0', '45.10.0.7')).toBe(false);
    expect(rangeCovers('garbage', '45.10.0.7')).toBe(false);
  });

  test('security: only a Google Ads id enters a query', () => {
    expect(ipCriteriaQuery('1234567890')).toContain('WHERE campaign.id = 1234567890 AND campaign_criterion.type = IP_BLOCK');
    for (const bad of ['1 OR 1=1', '0', '01', '12a', '', '1'.repeat(20), '123\n']) {
      expect(isGoogleAdsCampaignId(bad)).toBe(false);
      expect(() => ipCriteriaQuery(bad)).toThrow('not a Google Ads campaign id');
    }
  });
});
