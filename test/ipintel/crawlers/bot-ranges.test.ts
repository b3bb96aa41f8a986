import { afterAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseRangeFile, RANGES_DIR, RangeFileError, readRangeFile, serializeRangeFile } from '../../../src/ipintel/crawlers/bot-ranges';
import type { Crawler } from '../../../src/ipintel/crawlers/crawlers';
import { refreshBotRanges } from '../../../src/ipintel/crawlers/bot-ranges-refresh';
import { tempDir } from '../../support/temp-dir';

const doc = (...prefixes: unknown[]) => ({ creationTime: '2026-09-01T00:00:00.000000', prefixes });

describe('parseRangeFile', () => {
  test('reads the published layout, normalising host bits and dropping duplicates', () => {
    const parsed = parseRangeFile(
      doc({ ipv4Prefix: '66.249.64.0/27' }, { ipv6Prefix: '2001:4860:4801:10::/64' }, { ipv4Prefix: '66.249.64.5/27' }, { ipv6Prefix: '2001:4860:4801:0010:0::/64' }),
      'test',
    );
    expect(parsed).toEqual({ creationTime: '2026-09-01T00:00:00.000000', prefixes: ['66.249.64.0/27', '2001:4860:4801:10::/64'] });
  });

  const invalid: [string, unknown][] = [
    ['not an object', [{ ipv4Prefix: '1.2.3.0/24' }]],
    ['null', null],
    ['no prefixes', { creationTime: 'x' }],
    ['empty prefixes', doc()],
    ['a junk entry', doc({ ipv4Prefix: '1.2.3.0/24' }, 'junk')],
    ['neither key', doc({ prefix: '1.2.3.0/24' })],
    ['both keys', doc({ ipv4Prefix: '1.2.3.0/24', ipv6Prefix: '2001:db8::/32' })],
    ['not a CIDR', doc({ ipv4Prefix: '1.2.3.4' })],
    ['wrong family', doc({ ipv4Prefix: '2001:db8::/32' })],
    ['ipv6 under ipv4Prefix', doc({ ipv6Prefix: '10.0.0.0/8' })],
    ['the whole internet', doc({ ipv4Prefix: '0.0.0.0/0' })],
    ['a /7', doc({ ipv4Prefix: '66.0.0.0/7' })],
    ['all of IPv6', doc({ ipv6Prefix: '::/0' })],
    ['a non-decimal IPv4', doc({ ipv4Prefix: '0x42.249.64.0/27' })],
    ['a numeric creationTime', { creationTime: 5, prefixes: [{ ipv4Prefix: '1.2.3.0/24' }] }],
  ];
  for (const [name, input] of invalid) {
    test(`refuses ${name}`, () => {
      expect(() => parseRangeFile(input, 'test')).toThrow(RangeFileError);
    });
  }

  test('property: serialize then parse gives the same ranges back', () => {
    const v4 = fc.tuple(fc.ipV4(), fc.integer({ min: 8, max: 32 })).map(([ip, bits]) => ({ ipv4Prefix: `${ip}/${bits}` }));
    const v6 = fc.tuple(fc.ipV6(), fc.integer({ min: 16, max: 128 })).map(([ip, bits]) => ({ ipv6Prefix: `${ip}/${bits}` }));
    fc.assert(
      fc.property(fc.array(fc.oneof(v4, v6), { minLength: 1, maxLength: 30 }), fc.option(fc.string(), { nil: null }), (entries, creationTime) => {
        const parsed = parseRangeFile({ creationTime, prefixes: entries }, 'generated');
        expect(parseRangeFile(JSON.parse(serializeRangeFile(parsed)), 'again')).toEqual(parsed);
      }),
    );
  });

  test('property: arbitrary JSON either parses to CIDRs or throws RangeFileError, nothing else', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          const parsed = parseRangeFile({ prefixes: [value] }, 'fuzz');
          expect(parsed.prefixes.length).toBe(1);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeFileError);
        }
      }),
    );
  });

  test('every shipped file validates and is stored in the serialised layout', () => {
    const files = readdirSync(RANGES_DIR).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(['applebot.json', 'bingbot.json', 'duckduckbot.json', 'googlebot.json']);
    for (const file of files) expect(readFileSync(join(RANGES_DIR, file), 'utf8')).toBe(serializeRangeFile(readRangeFile(file)));
  });
});

describe('refreshing the ranges (local server standing in for the engines)', () => {
  const routes = new Map<string, () => Response>();
  const server = Bun.serve({ port: 0, fetch: (req) => (routes.get(new URL(req.url).pathname) ?? (() => new Response('nope', { status: 404 })))() });
  afterAll(() => server.stop(true));
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  const json = (value: unknown) => () => Response.json(value);

  function setup(sources: string[]) {
    const dir = tempDir('ranges');
    cpSync(join(RANGES_DIR, 'bingbot.json'), join(dir, 'bingbot.json'));
    const crawlers: Crawler[] = [{ engine: 'bing', claim: /bingbot/i, ranges: { file: 'bingbot.json', sources } }];
    return { dir, crawlers, read: () => readFileSync(join(dir, 'bingbot.json'), 'utf8') };
  }
  const current = readRangeFile('bingbot.json');
  const grown = doc(...current.prefixes.map((p) => ({ ipv4Prefix: p })), { ipv4Prefix: '40.77.190.0/24' });

  test('a valid document replaces the file', async () => {
    routes.set('/ok.json', json(grown));
    const { dir, crawlers, read } = setup([url('/ok.json')]);
    const [outcome] = await refreshBotRanges({ dir, crawlers });
    expect(outcome).toEqual({ file: 'bingbot.json', status: 'updated', source: url('/ok.json'), before: current.prefixes.length, after: current.prefixes.length + 1 });
    expect(readRangeFile('bingbot.json', dir).prefixes).toContain('40.77.190.0/24');
    expect(read()).toBe(serializeRangeFile(parseRangeFile(grown, 'x')));
  });

  test('a broken first source falls through to the next one', async () => {
    routes.set('/html', () => new Response('<html>moved</html>', { headers: { 'content-type': 'text/html' } }));
    routes.set('/ok.json', json(grown));
    const { dir, crawlers } = setup([url('/html'), url('/missing'), url('/ok.json')]);
    const [outcome] = await refreshBotRanges({ dir, crawlers });
    expect(outcome).toMatchObject({ status: 'updated', source: url('/ok.json') });
  });

  test('invalid downloads never touch the file', async () => {
    routes.set('/html', () => new Response('<html>moved</html>'));
    routes.set('/wide.json', json(doc({ ipv4Prefix: '0.0.0.0/0' })));
    routes.set('/empty.json', json(doc()));
    routes.set('/error', () => new Response('{}', { status: 500 }));
    const { dir, crawlers, read } = setup([url('/html'), url('/wide.json'), url('/empty.json'), url('/error'), url('/missing')]);
    const before = read();
    const [outcome] = await refreshBotRanges({ dir, crawlers });
    expect(outcome!.status).toBe('failed');
    if (outcome!.status === 'failed') {
      expect(outcome!.errors).toHaveLength(5);
      expect(outcome!.errors.join('\n')).toContain('HTTP 500');
      expect(outcome!.errors.join('\n')).toContain('not JSON');
    }
    expect(read()).toBe(before);
  });

  test('a list that lost more than half its prefixes needs --force', async () => {
    routes.set('/small.json', json(doc({ ipv4Prefix: '157.55.39.0/24' })));
    const { dir, crawlers, read } = setup([url('/small.json')]);
    const before = read();
    expect((await refreshBotRanges({ dir, crawlers }))[0]!.status).toBe('failed');
    expect(read()).toBe(before);
    expect((await refreshBotRanges({ dir, crawlers, force: true }))[0]!.status).toBe('updated');
    expect(readRangeFile('bingbot.json', dir).prefixes).toEqual(['157.55.39.0/24']);
  });

  test('a dry run validates and writes nothing; the same list with the same date is unchanged', async () => {
    routes.set('/ok.json', json(grown));
    routes.set('/same.json', json({ creationTime: current.creationTime, prefixes: current.prefixes.map((p) => ({ ipv4Prefix: p })) }));
    const { dir, crawlers, read } = setup([url('/ok.json')]);
    const before = read();
    expect((await refreshBotRanges({ dir, crawlers, dryRun: true }))[0]!.status).toBe('updated');
    expect(read()).toBe(before);
    const same = setup([url('/same.json')]);
    expect((await refreshBotRanges({ dir: same.dir, crawlers: same.crawlers }))[0]!.status).toBe('unchanged');
  });

  test('a server that never answers times out into a failure', async () => {
    const { dir, crawlers } = setup([url('/slow')]);
    routes.set('/slow', () => new Response(new ReadableStream({ start() {} })));
    const [outcome] = await refreshBotRanges({ dir, crawlers, timeoutMs: 200 });
    expect(outcome!.status).toBe('failed');
  });
});
