import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './scratch-dir';
import { requireWrk } from './wrk';

/** One SDK install call of the load mix: where it comes from and what it carries. */
export interface Profile {
  ip: string;
  clickId?: string;
}

export interface LoadResult {
  tool: 'wrk';
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  path: string;
  sdkKey: string;
  connections: number;
  durationSeconds: number;
  /** Requests cycle through these; every request gets a device id of its own. */
  profiles: readonly Profile[];
}

/** Load from Debian's wrk (installed when missing, else the bench stops: bench/wrk.ts). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return runWrk(options);
}

const luaString = (value: string) => `"${value.replace(/[^A-Za-z0-9_.:-]/g, '')}"`;

async function runWrk(options: LoadOptions): Promise<LoadResult> {
  const dir = scratchDir('wrk');
  const script = join(dir, 'install.lua');
  const profiles = options.profiles.map((p) => `{${luaString(p.ip)}, ${p.clickId ? luaString(p.clickId) : 'nil'}}`).join(',\n');
  writeFileSync(
    script,
    `local profiles = {${profiles}}
local counter = 0
local thread_id = 0
local threads = {}
function setup(thread) thread:set("tid", #threads + 1); table.insert(threads, thread) end
function init(args) thread_id = tid or 0; math.randomseed(os.time() * 1000 + thread_id) end
request = function()
  counter = counter + 1
  local p = profiles[(counter * 7 + thread_id) % #profiles + 1]
  local device = string.format("bench-%d-%d-%d", thread_id, counter, math.random(1, 2147483647))
  local body = '{"device_id":"' .. device .. '","platform":"android","os_version":"14"'
  if p[2] then body = body .. ',"click_id":"' .. p[2] .. '"' end
  body = body .. '}'
  return wrk.format("POST", ${JSON.stringify(options.path)}, {["Content-Type"] = "application/json", ["X-SDK-Key"] = ${luaString(options.sdkKey)}, ["X-Forwarded-For"] = p[1]}, body)
end`,
  );
  const proc = Bun.spawn([requireWrk(), '-t2', `-c${options.connections}`, `-d${options.durationSeconds}s`, '--latency', '-s', script, options.url], { stdout: 'pipe', stderr: 'pipe' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  if (proc.exitCode !== 0) throw new Error(`wrk failed: ${await new Response(proc.stderr).text()}\n${out}`);
  const ms = (label: string) => {
    const match = new RegExp(`^\\s*${label}%\\s+([0-9.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    if (!match) throw new Error(`no ${label}% latency in wrk output:\n${out}`);
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const requests = Number(/([0-9]+) requests in/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    tool: 'wrk',
    requests,
    reqPerSec: Number(/Requests\/sec:\s+([0-9.]+)/.exec(out)?.[1] ?? 0),
    p50Ms: ms('50'),
    p99Ms: ms('99'),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}
