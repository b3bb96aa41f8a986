import { describe, expect, test } from 'bun:test';
import { buildIndex, docName, loadDocs, splitPassages, tokens, type Doc } from '../../src/mcp/docs-index';

const page = (name: string, text: string): Doc => ({ name, title: /^#\s+(.+)$/m.exec(text)?.[1] ?? name, text });

describe('documentation passages', () => {
  test('a page splits at its headings, outside code fences; each passage names its headings', () => {
    const doc = page('a.md', '# Title\nintro\n\n## First\none\n```sh\n# not a heading\n```\n### Deeper\ntwo\n## Second\nthree\n');
    expect(splitPassages(doc)).toEqual([
      { document: 'a.md', heading: 'Title', text: 'intro' },
      { document: 'a.md', heading: 'Title > First', text: 'one\n```sh\n# not a heading\n```' },
      { document: 'a.md', heading: 'Title > First > Deeper', text: 'two' },
      { document: 'a.md', heading: 'Title > Second', text: 'three' },
    ]);
  });

  test('words are lower-cased, stop words and plural s dropped', () => {
    expect(tokens('The Links of X-Forwarded-For, and 429s; address')).toEqual(['link', 'x', 'forwarded', '429', 'address']);
  });
});

describe('BM25 search', () => {
  const index = buildIndex([
    page('rules.md', '# Rules\n## Hours\nThe hours condition takes a time zone.\n## Countries\nCountry codes are ISO alpha-2.\n'),
    page('ops.md', '# Operations\n## Backups\nBack up the data directory. Time to restore is short.\n'),
  ]);

  test('the passage whose heading and text hold the words ranks first; unrelated words find nothing', () => {
    const hits = index.search('hours time zone', 5);
    expect(hits[0]).toMatchObject({ document: 'rules.md', heading: 'Rules > Hours', text: 'The hours condition takes a time zone.' });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]?.score ?? 0);
    expect(hits.map((hit) => hit.heading)).toContain('Operations > Backups');
    expect(index.search('kubernetes', 5)).toEqual([]);
    expect(index.search('country', 1).map((hit) => hit.heading)).toEqual(['Rules > Countries']);
  });

  test('names: a page, docs/ or docs:// prefix; traversal, folders and other files name nothing', () => {
    expect(docName('smart-links.md')).toBe('smart-links.md');
    expect(docName('docs/smart-links.md')).toBe('smart-links.md');
    expect(docName('docs://smart-links.md')).toBe('smart-links.md');
    for (const bad of ['../README.md', 'docs/../package.json', '/etc/passwd', '..', 'sub/page.md', 'smart-links.txt', '.hidden.md', '']) expect(docName(bad)).toBeUndefined();
  });

  test("the repository's docs load, each with its title, and a search of the rule schema finds smart-links.md", async () => {
    const docs = await loadDocs();
    expect(docs.map((doc) => doc.name)).toContain('mcp.md');
    expect(docs.find((doc) => doc.name === 'smart-links.md')!.title).toBe('Smart links: routing rules');
    expect(buildIndex(docs).search('smart link rule weekdays', 3)[0]!.document).toBe('smart-links.md');
  });
});
