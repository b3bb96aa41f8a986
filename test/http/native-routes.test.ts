import { afterAll, describe, expect, test } from 'bun:test';
import { declaredRoutes, routeInProcess, type NativeRoutes, type PeerSource } from '../../src/http/native-routes';

/**
 * The in-process routing (forwarded requests, tests) must take the requests Bun's router takes,
 * with the same parameters, and pass on the rest. Each request goes to a real Bun.serve with the
 * same routes and to routeInProcess; the answers name the handler and its parameters.
 */
const answer = (route: string) => (request: Request & { params: Record<string, string> }, server: PeerSource) =>
  new Response(null, { headers: { 'x-route': `${route} ${encodeURIComponent(JSON.stringify(request.params))}`, 'x-peer': server.requestIP(request)?.address ?? '' } });

const routes = {
  '/c/:slug': { GET: answer('click') },
  '/i/:campaign': { GET: answer('impression') },
  '/static/here': { GET: answer('static') },
} satisfies NativeRoutes;
const fallback = (request: Request) => new Response(null, { headers: { 'x-route': `fallback ${request.method}` } });

const ROUTED = [
  '/c/abc', '/i/camp-1', '/static/here', '/c/abc?x=1&url=https%3A%2F%2Fa.example%2F', '/c/abc?', '/c/a%20b', '/c/a%2Fb', '/c/a%2fb',
  '/c/%E2%82%AC', '/c/%F0%9F%98%80', '/c/a+b', '/c/a%25b', '/c/a;b', '/c/%00x',
  // Malformed escapes and ill-formed UTF-8.
  '/c/%zz', '/c/a%', '/c/%2', '/c/%2x1', '/c/%E2%82', '/c/%E2%82a', '/c/%C0%AF', '/c/%ED%A0%80', '/c/%FF%FF', '/c/%80x%C0',
];
const PASSED_ON = ['/c/', '/c', '/c/a/b', '/c/a/', '/C/abc', '/%63/abc', '/i/', '/x/c/abc', '/static', '/static/here/', '/api/v1/links', '/'];

describe('routing in process, as Bun routes', () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', routes, fetch: fallback });
  afterAll(() => server.stop(true));
  const peer: PeerSource = { requestIP: () => ({ address: '192.0.2.7', family: 'IPv4', port: 1 }) };
  const inProcess = routeInProcess(routes, fallback, () => peer);
  const seen = (response: Response) => decodeURIComponent(response.headers.get('x-route') ?? '');

  test('the paths and parameters Bun routes, with malformed escapes decoded as Bun decodes them', async () => {
    for (const path of ROUTED) {
      const bun = seen(await fetch(`${server.url.origin}${path}`));
      expect(bun).not.toStartWith('fallback');
      expect({ path, route: seen(await inProcess(new Request(`http://in.process${path}`))) }).toEqual({ path, route: bun });
    }
  });

  test('the paths Bun passes on to fetch', async () => {
    for (const path of PASSED_ON) {
      expect({ path, route: seen(await fetch(`${server.url.origin}${path}`)) }).toEqual({ path, route: 'fallback GET' });
      expect({ path, route: seen(await inProcess(new Request(`http://in.process${path}`))) }).toEqual({ path, route: 'fallback GET' });
    }
  });

  test('HEAD goes to the GET handler; every other method is passed on', async () => {
    for (const method of ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const bun = seen(await fetch(`${server.url.origin}/c/abc`, { method }));
      expect(bun).toBe(method === 'HEAD' ? 'click {"slug":"abc"}' : `fallback ${method}`);
      expect(seen(await inProcess(new Request('http://in.process/c/abc', { method })))).toBe(bun);
    }
  });

  test('the handler reads the client address from the server it is given', async () => {
    expect((await inProcess(new Request('http://in.process/c/abc'))).headers.get('x-peer')).toBe('192.0.2.7');
  });

  test('the 405 logic hears of every method the routes answer', () => {
    expect(declaredRoutes(routes)).toEqual([
      { method: 'GET', path: '/c/:slug' },
      { method: 'GET', path: '/i/:campaign' },
      { method: 'GET', path: '/static/here' },
    ]);
  });
});
