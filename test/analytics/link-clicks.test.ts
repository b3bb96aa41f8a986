import { describe, expect, test } from 'bun:test';
import { selectLinkClickCounts } from '../../src/analytics/link-clicks.repo';
import { createOrganization } from '../../src/auth/accounts.service';
import { insertClick } from '../support/clicks';
import { backends } from '../support/db';
import { insertLink } from '../support/fixtures';
import { testMirror } from './mirror/mirror.helpers';

const NOW = new Date('2026-09-10T12:00:00.000Z');
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

for (const backend of backends()) {
  describe(`selectLinkClickCounts on ${backend.name}`, async () => {
    const db = await backend.create();
    const mirror = await testMirror({ db });
    const orgId = await createOrganization(db, 'Counts');
    const otherOrg = await createOrganization(db, 'Other');
    const busy = await insertLink(db, orgId);
    const quiet = await insertLink(db, orgId);
    const unclicked = await insertLink(db, orgId);
    const foreign = await insertLink(db, otherOrg);
    for (const hours of [1, 23.9]) await insertClick(db, { orgId, linkId: busy.linkId, createdAt: hoursAgo(hours) });
    for (const hours of [24.1, 24 * 29.9]) await insertClick(db, { orgId, linkId: busy.linkId, createdAt: hoursAgo(hours) });
    // Outside both windows, dropped, or in the future of `now`: never counted.
    await insertClick(db, { orgId, linkId: busy.linkId, createdAt: hoursAgo(24 * 30.1) });
    await insertClick(db, { orgId, linkId: busy.linkId, createdAt: hoursAgo(2), dropReason: 'bot' });
    await insertClick(db, { orgId, linkId: busy.linkId, createdAt: hoursAgo(-1) });
    await insertClick(db, { orgId, linkId: quiet.linkId, createdAt: hoursAgo(48) });
    await insertClick(db, { orgId: otherOrg, linkId: foreign.linkId, createdAt: hoursAgo(1) });
    await mirror.catchUp();

    test('the last 24 hours and 30 days of counted clicks per link, in one read', async () => {
      const counts = await selectLinkClickCounts(mirror, orgId, [busy.linkId, quiet.linkId, unclicked.linkId], NOW);
      expect(Object.fromEntries(counts)).toEqual({ [busy.linkId]: { last24h: 2, last30d: 4 }, [quiet.linkId]: { last24h: 0, last30d: 1 } });
    });

    test("another organization's link counts nothing, even when its id is asked for", async () => {
      const counts = await selectLinkClickCounts(mirror, orgId, [foreign.linkId], NOW);
      expect(counts.size).toBe(0);
      expect((await selectLinkClickCounts(mirror, otherOrg, [foreign.linkId], NOW)).get(foreign.linkId)).toEqual({ last24h: 1, last30d: 1 });
    });

    test('no ids read nothing', async () => {
      expect((await selectLinkClickCounts(mirror, orgId, [], NOW)).size).toBe(0);
    });
  });
}
