import type { IpType } from '../../ipintel/asn/asn-types';
import { parseIp, type IpAddress } from '../../ipintel/address';
import { setBounded } from '../../shared/cache';

/**
 * What the ingestion steps learn of one client address, each fact looked up the first time a step
 * asks and kept with the address. A flood of clicks (a bot, a click farm behind one NAT: the very
 * traffic risk scoring exists for) comes from few addresses, so its clicks skip the database
 * lookups and the hashing of every click but the first. `undefined` means not asked yet; null is
 * an answer ("no country known").
 */
export interface AddressFacts {
  /** The parsed address, or null when missing or malformed. */
  ip: IpAddress | null;
  /** The address in its one spelling (ip.toString()), or null. */
  text: string | null;
  country?: string | null;
  region?: string | null;
  ipType?: IpType | null;
  household?: string;
  /** The ip-day hash of the UTC day `ipDayOf` (days since the epoch). */
  ipDay?: string;
  ipDayOf?: number;
}

/** Addresses kept; emptied when full, like the user-agent cache, so memory stays bounded under any mix. */
export const ADDRESS_CACHE_LIMIT = 10_000;

export interface AddressCache {
  facts(raw: string | null | undefined): AddressFacts;
}

const NO_ADDRESS: Readonly<AddressFacts> = Object.freeze({ ip: null, text: null });

export function createAddressCache(limit = ADDRESS_CACHE_LIMIT): AddressCache {
  const known = new Map<string, AddressFacts>();
  return {
    facts(raw) {
      if (typeof raw !== 'string') return NO_ADDRESS;
      const hit = known.get(raw);
      if (hit) return hit;
      const ip = parseIp(raw);
      // A malformed address has no facts to learn: nothing is kept for it.
      if (!ip) return NO_ADDRESS;
      return setBounded(known, limit, raw, { ip, text: ip.toString() });
    },
  };
}

/** No cache: every click's address is parsed and looked up afresh (one-off enrichment, tests). */
export const uncachedAddresses: AddressCache = {
  facts(raw) {
    const ip = parseIp(raw);
    return ip ? { ip, text: ip.toString() } : NO_ADDRESS;
  },
};
