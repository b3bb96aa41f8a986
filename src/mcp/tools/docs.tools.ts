/** search_docs and get_doc: the installation's documentation, served without a key. */
import { Type } from '@sinclair/typebox';
import { fieldError } from '../../http/errors';
import { docName, docsIndex, type SearchHit } from '../docs-index';
import { docsTool } from '../tool';

const MAX_RESULTS = 20;
const DEFAULT_RESULTS = 5;

const Hit = Type.Object({
  document: Type.String({ description: 'the page, e.g. smart-links.md; read it whole with get_doc' }),
  heading: Type.String({ description: "the passage's headings, outermost first, joined with ' > '" }),
  text: Type.String(),
  score: Type.Number({ description: 'BM25 relevance; higher is better' }),
});

export const searchDocs = docsTool({
  name: 'search_docs',
  title: 'Search the documentation',
  description:
    "Searches this service's documentation (the pages under docs/: the REST API, smart-link routing rules, SDK endpoints, conversions, " +
    'costs, click protection, configuration and operations). Returns the best passages, each with its page and heading, ranked by BM25. ' +
    'Use it before answering how the service behaves or how to call an endpoint; open a whole page with get_doc.',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, maxLength: 500, description: 'words to look for, e.g. "smart link rule hours time zone"', error: 'must be 1 to 500 characters' }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESULTS, description: `passages to return, 1 to ${MAX_RESULTS} (default ${DEFAULT_RESULTS})`, error: `must be an integer from 1 to ${MAX_RESULTS}` })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ query: Type.String(), results: Type.Array(Hit) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const index = await docsIndex();
    return { query: args.query, results: index.search(args.query, args.limit ?? DEFAULT_RESULTS) };
  },
  render: ({ query, results }: { query: string; results: SearchHit[] }) =>
    results.length === 0
      ? `No passage of the documentation matches "${query}".`
      : results.map((hit, i) => `## ${i + 1}. ${hit.document} > ${hit.heading} (score ${hit.score})\n\n${hit.text}`).join('\n\n'),
});

const Page = Type.Object({
  document: Type.String(),
  uri: Type.String({ description: 'the same page as an MCP resource' }),
  title: Type.String(),
  text: Type.String({ description: 'the page in Markdown' }),
});

export const getDoc = docsTool({
  name: 'get_doc',
  title: 'Read a documentation page',
  description:
    'Returns one whole page of the documentation in Markdown. `path` is a page name as search_docs reports it (e.g. "smart-links.md"), ' +
    'optionally prefixed with "docs/" or "docs://". Only pages under docs/ are served.',
  input: Type.Object(
    { path: Type.String({ minLength: 1, maxLength: 200, description: 'e.g. "smart-links.md" or "docs/management-api.md"', error: 'must be a page name such as smart-links.md' }) },
    { additionalProperties: false },
  ),
  output: Page,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args) {
    const index = await docsIndex();
    const name = docName(args.path);
    const doc = name === undefined ? undefined : index.doc(name);
    if (!doc) throw fieldError('path', `must name a page under docs/: ${index.docs.map((d) => d.name).join(', ')}`);
    return { document: doc.name, uri: `docs://${doc.name}`, title: doc.title, text: doc.text };
  },
  render: (page: { text: string }) => page.text,
});

