/**
 * What one campaign's sync changes, decided without I/O (docs/protect-sync.md, "What a sync
 * changes"). The advertiser's own IP criteria stay and count toward the cap; this service's
 * follow the top of the blocklist: what left it, or fell below the cap, is removed.
 */
import type { BlocklistEntry } from './blocklist.repo';
import { rangeCovers, type IpCriterion } from './google-ads/ip-criteria';

/** Negative IP criteria Google Ads allows on one campaign (interface, Limits). */
export const IP_EXCLUSIONS_PER_CAMPAIGN = 500;

export interface CampaignPlan {
  /** Blocklist entries to create, in priority order. */
  add: BlocklistEntry[];
  /** This service's criteria to remove. */
  remove: IpCriterion[];
  /** Entries already excluded on the campaign, by this service's criterion or the advertiser's. */
  kept: number;
  /** Entries left out because the campaign has no room for them. */
  skipped: number;
}

/**
 * `blocklist` in priority order (selectBlocklist); `owned` the resource names of the criteria this
 * service pushed to the campaign (ip_exclusions). An entry inside an advertiser's range is kept
 * as it is; every other criterion of theirs takes one place under `cap`.
 */
export function planCampaign(input: { blocklist: readonly BlocklistEntry[]; existing: readonly IpCriterion[]; owned: ReadonlySet<string>; cap?: number }): CampaignPlan {
  const cap = input.cap ?? IP_EXCLUSIONS_PER_CAMPAIGN;
  const theirs = input.existing.filter((criterion) => !input.owned.has(criterion.resourceName));
  const ours = input.existing.filter((criterion) => input.owned.has(criterion.resourceName));
  const theirRanges = theirs.flatMap((criterion) => (criterion.block ? [criterion.block] : []));
  const room = Math.max(0, cap - theirs.length);

  const chosen: BlocklistEntry[] = [];
  let keptByTheirs = 0;
  let skipped = 0;
  for (const entry of input.blocklist) {
    if (theirRanges.some((range) => rangeCovers(range, entry.ip_block))) keptByTheirs += 1;
    else if (chosen.length < room) chosen.push(entry);
    else skipped += 1;
  }

  const chosenBlocks = new Set(chosen.map((entry) => entry.ip_block));
  const present = new Set<string>();
  const remove: IpCriterion[] = [];
  for (const criterion of ours) {
    // A second criterion of ours for one block is a leftover: one is enough.
    if (criterion.block !== null && chosenBlocks.has(criterion.block) && !present.has(criterion.block)) present.add(criterion.block);
    else remove.push(criterion);
  }
  const add = chosen.filter((entry) => !present.has(entry.ip_block));
  return { add, remove, kept: keptByTheirs + present.size, skipped };
}
