import '../support/slow-suite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPostgres } from '../support/db';
import { startServer, type RunningServer } from '../support/server';
import { tempDir } from '../support/temp-dir';

/**
 * README's "From sign-up to the first tracked click", run with bash exactly as written against a
 * real server, the README's host replaced by the server's: every answer comment in the block is
 * checked against what its command printed, so the walk-through and the server cannot drift.
 */

// Real server processes: each boot opens a store and a DuckDB mirror.
setDefaultTimeout(180_000);
const BOOT_MS = 120_000;

const README_HOST = 'http://localhost:3000';
const BROWSER_AGENT_LINE = /^ *-A '[^']*' \\\n/m;

/** The section's shell block, as README.md holds it now. */
function quickStartBlock(): string {
  const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## From sign-up to the first tracked click'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no shell block under "From sign-up to the first tracked click"');
  return block;
}

/** An answer comment: an optional status (curl -s prints none), then a JSON body or a URL. */
const ANSWER = /^# (?:\d{3} )?(\{.*\}|https?:\/\/\S+)$/;
const MARKER = '@@quickstart-answer@@';

interface Answered {
  /** The commands since the previous answer comment. */
  command: string;
  /** The body the comment shows. */
  expected: string;
  /** What those commands printed (field() shows each answer it reads). */
  output: string;
}

/** `01...` is an id, `...` anything left out, `<N characters>` that many characters of a string. */
function answerPattern(expected: string): RegExp {
  let source = '';
  for (const token of expected.split(/(01\.\.\.|\.\.\.|<\d+ characters>)/)) {
    if (token === '01...') source += '[0-9A-HJKMNP-TV-Z]{26}';
    else if (token === '...') source += '.*?';
    else if (/^<\d+ characters>$/.test(token)) source += `[^"]{${parseInt(token.slice(1), 10)}}`;
    else source += token.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * Runs the block with bash in a fresh directory (the cookie jar lands there), stopping at the
 * first failing command. A marker printed in place of each answer comment splits the output
 * into what each command printed; nothing may be printed after the last answer.
 */
async function runBlock(block: string): Promise<Answered[]> {
  const answers: Omit<Answered, 'output'>[] = [];
  const script = ['exec 2>&1', 'set -eo pipefail'];
  let command: string[] = [];
  for (const line of block.split('\n')) {
    const answer = ANSWER.exec(line);
    if (answer) {
      answers.push({ command: command.join('\n'), expected: answer[1]! });
      script.push(`printf '\\n%s\\n' '${MARKER}'`);
      command = [];
    } else {
      script.push(line);
      if (line.trim() !== '' && !line.startsWith('#')) command.push(line);
    }
  }
  const home = tempDir('quickstart');
  const proc = Bun.spawn(['bash', '-c', script.join('\n')], { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home }, stdout: 'pipe' });
  const printed = await new Response(proc.stdout).text();
  const code = await proc.exited;
  if (code !== 0) throw new Error(`the quick start stopped with exit code ${code}; it printed:\n${printed}`);
  const parts = printed.split(`\n${MARKER}\n`);
  expect(parts).toHaveLength(answers.length + 1);
  expect(parts[answers.length]!.trim()).toBe('');
  return answers.map((answer, i) => ({ ...answer, output: parts[i]!.trim() }));
}

/** The answer of the first command that contains `text`. */
function answerOf(answered: Answered[], text: string): Answered {
  const found = answered.find((a) => a.command.includes(text));
  if (!found) throw new Error(`no command with ${text} in the quick start`);
  return found;
}

/** A server as `npm start` runs it (rate limits on), on its own store; the README's host becomes its own. */
async function startQuickStartServer(backend: string): Promise<{ server: RunningServer; host: string }> {
  const env: Record<string, string> = { RATE_LIMIT: 'on' };
  if (backend === 'postgres') env.DATABASE_URL = (await createPostgres({ migrated: false })).url;
  const server = await startServer(env, { timeoutMs: BOOT_MS });
  return { server, host: `http://localhost:${server.port}` };
}

const backends = ['pglite', ...(process.env.DATABASE_URL ? ['postgres'] : [])];

for (const backend of backends) {
  describe(`README quick start on ${backend}`, () => {
    test('every step answers as the README shows; the click counts and the conversion gets its campaign', async () => {
      const { server, host } = await startQuickStartServer(backend);
      try {
        const answered = await runBlock(quickStartBlock().replaceAll(README_HOST, host));
        for (const { command, expected, output } of answered) {
          expect({ command, output }).toEqual({ command, output: expect.stringMatching(answerPattern(expected)) });
        }

        const campaignId = JSON.parse(answerOf(answered, 'CAMPAIGN=$(').output).id;
        const clickId = new URL(answerOf(answered, 'echo "$REDIRECT"').output).searchParams.get('svc_click_id');
        expect(JSON.parse(answerOf(answered, '/postback?').output).matched).toBe(true);

        const clicks = JSON.parse(answerOf(answered, '/api/v1/clicks?').output).data;
        expect(clicks).toHaveLength(1);
        expect(clicks[0]).toMatchObject({ id: clickId, gclid: 'TeSter-123', isBot: false, dropReason: null });
        const conversions = JSON.parse(answerOf(answered, '/api/v1/conversions"').output).data;
        expect(conversions).toHaveLength(1);
        expect(conversions[0]).toMatchObject({ clickId, campaignId, eventName: 'purchase', value: 19.99, currency: 'USD', source: 'postback' });
      } finally {
        await server.stop();
      }
    });

    test("with curl's own user agent the click is kept, exported with dropReason bot, and never attributed", async () => {
      const block = quickStartBlock();
      expect(block).toMatch(BROWSER_AGENT_LINE);
      const { server, host } = await startQuickStartServer(backend);
      try {
        const answered = await runBlock(block.replace(BROWSER_AGENT_LINE, '').replaceAll(README_HOST, host));
        const key = JSON.parse(answerOf(answered, 'KEY=$(').output).api_key;
        const clickId = new URL(answerOf(answered, 'echo "$REDIRECT"').output).searchParams.get('svc_click_id');
        expect(JSON.parse(answerOf(answered, '/postback?').output).matched).toBe(false);

        const clicks = JSON.parse(answerOf(answered, '/api/v1/clicks?').output).data;
        expect(clicks).toHaveLength(1);
        expect(clicks[0]).toMatchObject({ id: clickId, isBot: false, dropReason: 'bot' });
        const conversions = JSON.parse(answerOf(answered, '/api/v1/conversions"').output).data;
        expect(conversions).toMatchObject([{ clickId, campaignId: null }]);

        // The background pass that matches late conversions skips a dropped click too.
        await Bun.sleep(2_500);
        const later = await fetch(`${server.url}/api/v1/conversions`, { headers: { authorization: `Bearer ${key}` } });
        expect(((await later.json()) as { data: unknown[] }).data).toMatchObject([{ clickId, campaignId: null }]);
      } finally {
        await server.stop();
      }
    });
  });
}
