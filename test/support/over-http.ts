import type { RunningServer } from './server';

/* No test-runner imports here: bench/redirect.ts uses this outside `bun test`. */

const json = { 'content-type': 'application/json' };

/** Registers a new account over HTTP: what it signs in with, and its session cookie. */
export async function registerOver(server: RunningServer): Promise<{ email: string; password: string; cookie: string }> {
  const email = `e2e-${crypto.randomUUID()}@example.com`;
  const password = 'password-e2e-123';
  const registered = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email, password, organization: 'E2E' }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  return { email, password, cookie: registered.headers.get('set-cookie')!.split(';')[0]! };
}

/** A new account's API key, issued over HTTP. */
export async function apiKeyOver(server: RunningServer): Promise<string> {
  const { cookie } = await registerOver(server);
  const key = await fetch(`${server.url}/api/dashboard/keys`, {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ name: 'e2e' }),
  });
  return ((await key.json()) as { api_key: string }).api_key;
}

/** A new account, its API key and a tracking link, all made over HTTP. */
export async function createLinkOver(server: RunningServer): Promise<{ slug: string; id: string; apiKey: string }> {
  const apiKey = await apiKeyOver(server);
  const link = await fetch(`${server.url}/api/v1/links`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ destination: 'https://landing.example.com/e2e' }),
  });
  if (link.status !== 201) throw new Error(`create link: ${link.status} ${await link.text()}`);
  const { slug, id } = (await link.json()) as { slug: string; id: string };
  return { slug, id, apiKey };
}
