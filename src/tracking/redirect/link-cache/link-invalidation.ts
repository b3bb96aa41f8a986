import type { Db } from '../../../db/db';
import { changedDomain } from './link-changes';
import { findLinkById } from '../lookups.repo';
import { cacheKey } from './cache-keys';
import type { CachedLinks } from './cached-links';
import type { LinkLoads } from './link-loads';
import type { UnknownKeys } from './unknown-keys';

/**
 * What a link change (this node's publish, or another node's NOTIFY) does to the cache: a
 * `domain:` change drops every link on the domain, a link id drops that link and adds its new
 * key to the filter; either empties the negative entries and keeps lookups under way from caching.
 */
export function linkChangeHandler(parts: { db: Db; links: CachedLinks; unknown: UnknownKeys; loads: LinkLoads }): (change: string) => void {
  const { db, links, unknown, loads } = parts;
  return (change) => {
    loads.invalidate();
    unknown.forgetMissing();
    const domain = changedDomain(change);
    if (domain !== undefined) {
      links.dropDomain(domain);
      return;
    }
    const linkId = change;
    links.dropLink(linkId);
    void findLinkById(db, linkId)
      .then((row) => {
        if (row) unknown.exists(cacheKey(row.domain, row.slug));
      })
      .catch((error) => console.error('link cache: reloading a changed link failed', error));
  };
}
