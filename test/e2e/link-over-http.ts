import type { RunningServer } from '../support/server';

/* No test-runner imports here: bench/redirect.ts uses this outside `bun test`. */

/** Registers an account, issues an API key and creates a tracking link, all over HTTP. */
export async function createLinkOver(server: RunningServer): Promise<{ slug: string; id: string; apiKey: string }> {
  const email = `e2e-${crypto.randomUUID()}@example.com`;
  const registered = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'password-e2e-123', organization: 'E2E' }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const key = await fetch(`${server.url}/api/dashboard/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'e2e' }),
  });
  const { api_key: apiKey } = (await key.json()) as { api_key: string };
  const link = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ destination: 'https://landing.example.com/e2e' }),
  });
  if (link.status !== 201) throw new Error(`create link: ${link.status} ${await link.text()}`);
  const { slug, id } = (await link.json()) as { slug: string; id: string };
  return { slug, id, apiKey };
}
