/**
 * A campaign's IP exclusions as Google Ads holds them (IP_BLOCK campaign criteria), in the
 * blocklist's spelling, and the operations that change them.
 */
import ipaddr from 'ipaddr.js';
import { exclusionBlock } from '../../../ipintel/ip-intel';
import type { CampaignCriterionOperation, GoogleAdsClient } from './google-ads.client';

export interface IpCriterion {
  resourceName: string;
  /** As Google Ads returned it. */
  ipAddress: string;
  /** The same address or range in the blocklist's spelling; null when it does not parse. */
  block: string | null;
}

/** Google Ads ids are positive 64-bit integers: only such an id may enter a query. */
const CAMPAIGN_ID = /^[1-9][0-9]{0,18}$/;
export const isGoogleAdsCampaignId = (externalId: string) => CAMPAIGN_ID.test(externalId);

export function ipCriteriaQuery(campaignId: string): string {
  if (!isGoogleAdsCampaignId(campaignId)) throw new Error(`not a Google Ads campaign id: ${campaignId}`);
  return (
    'SELECT campaign_criterion.resource_name, campaign_criterion.ip_block.ip_address, campaign_criterion.negative ' +
    `FROM campaign_criterion WHERE campaign.id = ${campaignId} AND campaign_criterion.type = IP_BLOCK ` +
    "AND campaign_criterion.status != 'REMOVED'"
  );
}

/** The campaign's negative IP criteria, every page of them. */
export async function listIpCriteria(client: GoogleAdsClient, customerId: string, campaignId: string): Promise<IpCriterion[]> {
  const rows = await client.search(customerId, ipCriteriaQuery(campaignId));
  const criteria: IpCriterion[] = [];
  for (const row of rows) {
    const criterion = row.campaignCriterion as { resourceName?: unknown; negative?: unknown; ipBlock?: { ipAddress?: unknown } } | undefined;
    if (typeof criterion?.resourceName !== 'string' || criterion.negative === false) continue;
    const ipAddress = typeof criterion.ipBlock?.ipAddress === 'string' ? criterion.ipBlock.ipAddress : '';
    criteria.push({ resourceName: criterion.resourceName, ipAddress, block: criterionBlock(ipAddress) });
  }
  return criteria;
}

/**
 * An IP_BLOCK address in the blocklist's spelling: a single address (`/32`, `/128` or none) as
 * exclusionBlock writes it, an IPv6 /64 as `prefix::/64`, any other range as `network/length`.
 */
export function criterionBlock(text: string): string | null {
  const range = parseRange(text.trim());
  if (!range) return null;
  const [address, length] = range;
  const single = address.kind() === 'ipv4' ? 32 : 128;
  if (length === single) return address.toString();
  if (address.kind() === 'ipv6' && length === 64) return exclusionBlock(address.toString());
  const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${length}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${length}`);
  return `${network.toString()}/${length}`;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address or CIDR range in the usual spellings only (ipaddr.js also reads `45.1.2` and hex). */
function parseRange(text: string): Range | null {
  const [addressText = '', lengthText, ...rest] = text.split('/');
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(addressText);
  if (rest.length > 0 || (!isV4 && !ipaddr.IPv6.isValid(addressText))) return null;
  const address = ipaddr.parse(addressText);
  const single = address.kind() === 'ipv4' ? 32 : 128;
  if (lengthText === undefined) return unmapped(address, single);
  if (!/^[0-9]{1,3}$/.test(lengthText) || Number(lengthText) > single) return null;
  return unmapped(address, Number(lengthText));
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d/n, n >= 96) is the IPv4 range it maps. */
function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6, length: number): Range {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && length >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), length - 96];
  }
  return [address, length];
}

/** Whether `range` (a criterion's block) holds all of `block` (a blocklist entry). */
export function rangeCovers(range: string, block: string): boolean {
  const outer = parseRange(range);
  const inner = parseRange(block);
  if (!outer || !inner || outer[0].kind() !== inner[0].kind() || outer[1] > inner[1]) return false;
  return inner[0].match(outer as [ipaddr.IPv4, number]);
}

export const createIpBlock = (customerId: string, campaignId: string, block: string): CampaignCriterionOperation => ({
  create: { campaign: `customers/${customerId}/campaigns/${campaignId}`, negative: true, ipBlock: { ipAddress: block } },
});

export const removeCriterion = (resourceName: string): CampaignCriterionOperation => ({ remove: resourceName });
