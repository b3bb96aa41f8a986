import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { rememberAddresses } from '../../src/ipintel/address-memo';
import { openIpIntel } from '../../src/ipintel/ip-intel';

const intel = openIpIntel();

/** The shipped databases behind a counter of the lookups that reach them. */
function counted() {
  const calls = { country: 0, place: 0, ipType: 0 };
  const lookups = {
    country: (ip: string) => (calls.country++, intel.country(ip)),
    place: (ip: string) => (calls.place++, intel.place(ip)),
    ipType: (ip: string) => (calls.ipType++, intel.ipType(ip)),
  };
  return { calls, lookups };
}

describe('rememberAddresses', () => {
  test('property: answers what the databases answer, for any address text, in any order', () => {
    const remembered = rememberAddresses(intel, 3);
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('8.8.8.8', '81.2.69.142', '127.0.0.1', '2a02:8070::1'), fc.string({ maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(address, { minLength: 1, maxLength: 20 }), (addresses) => {
        for (const ip of addresses) {
          expect(remembered.country(ip)).toBe(intel.country(ip));
          expect(remembered.place(ip)).toEqual(intel.place(ip));
          expect(remembered.ipType(ip)).toBe(intel.ipType(ip));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('property: questions about different addresses interleaved in any order get their own answers', () => {
    // A visit asks about its address several times in a row, and the memo keeps the last one aside.
    const remembered = rememberAddresses(intel, 2);
    const question = fc.tuple(fc.constantFrom('8.8.8.8', '81.2.69.142', '127.0.0.1', '2a02:8070::1', '1.1.1.1'), fc.constantFrom('country', 'place', 'ipType') as fc.Arbitrary<'country' | 'place' | 'ipType'>);
    fc.assert(
      fc.property(fc.array(question, { minLength: 1, maxLength: 30 }), (questions) => {
        // A new string each time, as each request's address is.
        for (const [ip, asked] of questions) expect(remembered[asked](`${ip} `.trimEnd())).toEqual(intel[asked](ip));
      }),
      { numRuns: 300 },
    );
  });

  test('each address reaches the databases once per lookup, null answers included', () => {
    const { calls, lookups } = counted();
    const remembered = rememberAddresses(lookups);
    for (let i = 0; i < 5; i++) {
      for (const ip of ['81.2.69.142', '127.0.0.1']) {
        remembered.country(ip);
        remembered.place(ip);
        remembered.ipType(ip);
      }
    }
    expect(calls).toEqual({ country: 2, place: 2, ipType: 2 });
    expect(remembered.country('127.0.0.1')).toBeNull();
  });

  test('a full memo starts over, and text longer than an address is never kept', () => {
    const { calls, lookups } = counted();
    const remembered = rememberAddresses(lookups, 2);
    for (const ip of ['8.8.8.8', '1.1.1.1', '9.9.9.9', '8.8.8.8']) remembered.country(ip);
    expect(calls.country).toBe(4);
    const long = `8.8.8.8${' '.repeat(100)}`;
    remembered.country(long);
    remembered.country(long);
    expect(calls.country).toBe(6);
  });
});
