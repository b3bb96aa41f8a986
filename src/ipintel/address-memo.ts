import type { IpIntel } from './ip-intel';
import { setBounded } from '../shared/cache';

type AddressLookups = Pick<IpIntel, 'country' | 'place' | 'ipType'>;

interface Answers {
  country?: string | null;
  place?: { region: string | null; city: string | null };
  ipType?: ReturnType<IpIntel['ipType']>;
}

/** Addresses kept; emptied when full, so memory stays bounded under any mix of visitors. */
export const ADDRESS_MEMO_LIMIT = 10_000;
const MAX_ADDRESS_LENGTH = 64;

/**
 * The same lookups, each answered once per address and then from memory. A smart link's rules
 * ask about the visitor's address on the thread that answers (country, region, city, IP type):
 * a returning visitor, or a flood from one address, then costs no database lookup. The shipped
 * databases change only with a restart, so a kept answer never goes stale.
 */
export function rememberAddresses(intel: AddressLookups, limit = ADDRESS_MEMO_LIMIT): AddressLookups {
  const known = new Map<string, Answers>();
  // A visit asks about one address several times in a row (country, place, IP type): the last
  // entry is kept aside, so only the first question of a visit looks the address up.
  let lastIp: string | null = null;
  let last: Answers = {};
  const answers = (ip: string): Answers => {
    if (ip === lastIp) return last;
    // Longer than any address: answered, never kept.
    if (ip.length > MAX_ADDRESS_LENGTH) return {};
    const found = known.get(ip) ?? setBounded(known, limit, ip, {});
    lastIp = ip;
    last = found;
    return found;
  };
  return {
    country(ip) {
      const found = answers(ip);
      return found.country !== undefined ? found.country : (found.country = intel.country(ip));
    },
    place(ip) {
      const found = answers(ip);
      return (found.place ??= intel.place(ip));
    },
    ipType(ip) {
      const found = answers(ip);
      return found.ipType !== undefined ? found.ipType : (found.ipType = intel.ipType(ip));
    },
  };
}
