// Run by test/typecheck.test.ts under Node: the built package (dist/) lists clicks at argv[2]
// through one 429, and signs a body. Prints one JSON line.
import { createServerClient, signIngestBody } from '../dist/index.js';

const svc = createServerClient({ baseUrl: process.argv[2], apiKey: 'svc_live_0123456789abcdef0123456789abcdef', retry: { sleep: async () => {} } });
const page = await svc.clicks.list({ limit: 1 });
console.log(JSON.stringify({ page, signature: await signIngestBody('0123456789abcdef', 'body') }));
