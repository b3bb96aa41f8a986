import { describe, expect, test } from 'bun:test';
import { createIngestion } from '../../../src/tracking/enrich/ingest';
import { createIpHasher } from '../../../src/shared/crypto/ip-hash';
import { IPHONE, rawClick } from './click-fixture';

const ingestion = createIngestion({ ipHasher: createIpHasher('region-step-secret-0123456789abcdef') });

describe('the region step', () => {
  test('sets the region the city database gives the address, IPv4 and IPv6', () => {
    expect(ingestion.enrich(rawClick({ ip: '81.2.69.160', user_agent: IPHONE })).region).toBe('England');
    expect(ingestion.enrich(rawClick({ ip: '5.1.66.1', user_agent: IPHONE })).region).toBe('Bavaria');
    expect(ingestion.enrich(rawClick({ ip: '::ffff:8.8.8.8', user_agent: IPHONE })).region).toBe('California');
  });

  test('no address, an unknown one or a private one: no region, and a dropped click still gets one', () => {
    expect(ingestion.enrich(rawClick({ ip: null })).region).toBeNull();
    expect(ingestion.enrich(rawClick({ ip: 'garbage' })).region).toBeNull();
    expect(ingestion.enrich(rawClick({ ip: '10.1.2.3' })).region).toBeNull();
    const bot = ingestion.enrich(rawClick({ ip: '5.1.66.1', user_agent: 'curl/8.4.0' }));
    expect(bot).toMatchObject({ drop_reason: 'bot', region: 'Bavaria' });
  });
});
