/**
 * The documentation the MCP server serves: every docs/*.md of the installation, split into
 * passages at their headings and ranked by BM25 for `search_docs` (docs/mcp.md, "Documentation").
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DOCS_DIR = join(import.meta.dir, '..', '..', 'docs');
/** What a search answers of one passage: enough to act on; get_doc has the rest. */
export const MAX_PASSAGE_CHARS = 3000;
const DOC_NAME = /^[a-z0-9][a-z0-9._-]*\.md$/;

export interface Doc {
  /** The file name, e.g. `smart-links.md`; its resource is `docs://smart-links.md`. */
  name: string;
  title: string;
  text: string;
}

export interface Passage {
  document: string;
  /** The headings down to the passage's own, joined with ' > '. */
  heading: string;
  text: string;
}

export interface SearchHit extends Passage {
  score: number;
}

export interface DocsIndex {
  docs: readonly Doc[];
  doc(name: string): Doc | undefined;
  search(query: string, limit: number): SearchHit[];
}

/** Words too common to tell passages apart. */
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from has have how i if in is it its my no not of on or so that the their then there these this to was what when where which who why will with you your'.split(' '),
);

/** Lower-cased words and numbers; a plural `s` is dropped so `links` finds `link`. */
export function tokens(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !STOP_WORDS.has(word)).map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
}

/** Passages of one Markdown document: a new one at each heading outside a code fence. */
export function splitPassages(doc: Doc): Passage[] {
  const passages: Passage[] = [];
  const trail: string[] = [];
  let lines: string[] = [];
  let heading = doc.title;
  let fenced = false;
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text) passages.push({ document: doc.name, heading, text });
    lines = [];
  };
  for (const line of doc.text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    flush();
    const level = match[1]!.length;
    trail.length = Math.max(0, level - 1);
    trail[level - 1] = match[2]!;
    heading = trail.filter(Boolean).join(' > ');
  }
  flush();
  return passages;
}

interface Indexed extends Passage {
  terms: Map<string, number>;
  length: number;
}

/** Okapi BM25 with the usual constants; headings count twice, so a section named after the query ranks first. */
const K1 = 1.2;
const B = 0.75;

export function buildIndex(docs: readonly Doc[]): DocsIndex {
  const passages: Indexed[] = docs.flatMap(splitPassages).map((passage) => {
    const words = [...tokens(passage.heading), ...tokens(passage.heading), ...tokens(passage.text)];
    const terms = new Map<string, number>();
    for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
    return { ...passage, terms, length: words.length };
  });
  const documentFrequency = new Map<string, number>();
  for (const passage of passages) for (const term of passage.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const averageLength = passages.reduce((sum, passage) => sum + passage.length, 0) / Math.max(1, passages.length);
  const idf = (term: string) => {
    const df = documentFrequency.get(term) ?? 0;
    return Math.log(1 + (passages.length - df + 0.5) / (df + 0.5));
  };
  const byName = new Map(docs.map((doc) => [doc.name, doc]));
  return {
    docs,
    doc: (name) => byName.get(name),
    search(query, limit) {
      const wanted = [...new Set(tokens(query))];
      const scored: SearchHit[] = [];
      for (const passage of passages) {
        let score = 0;
        for (const term of wanted) {
          const frequency = passage.terms.get(term);
          if (!frequency) continue;
          score += (idf(term) * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * passage.length) / averageLength));
        }
        if (score > 0) scored.push({ document: passage.document, heading: passage.heading, text: clip(passage.text), score: Math.round(score * 1000) / 1000 });
      }
      return scored.sort((a, b) => b.score - a.score).slice(0, limit);
    },
  };
}

function clip(text: string): string {
  return text.length <= MAX_PASSAGE_CHARS ? text : `${text.slice(0, MAX_PASSAGE_CHARS)}\n[... cut; get_doc has the whole page]`;
}

/** Reads every docs/*.md; a name outside DOC_NAME (none in the repository) is not served. */
export async function loadDocs(dir = DOCS_DIR): Promise<Doc[]> {
  const names = (await readdir(dir)).filter((name) => DOC_NAME.test(name)).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(join(dir, name), 'utf8');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? name;
      return { name, title, text };
    }),
  );
}

let shared: Promise<DocsIndex> | undefined;

/** The installation's documentation, read once per process: the files ship with the code and never change under it. */
export function docsIndex(): Promise<DocsIndex> {
  shared ??= loadDocs().then(buildIndex);
  shared.catch(() => (shared = undefined));
  return shared;
}

/**
 * The document a `get_doc` path or a `docs://` URI names: `smart-links.md`, `docs/smart-links.md`
 * or `docs://smart-links.md`. Anything else (a directory, `..`, another extension) names none.
 */
export function docName(path: string): string | undefined {
  const name = path.replace(/^docs:\/\//, '').replace(/^docs\//, '');
  return DOC_NAME.test(name) ? name : undefined;
}
