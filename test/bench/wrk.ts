/**
 * The HTTP load generator: wrk (Debian's package), driven by a generated Lua script that posts the
 * query with new variable values on every request and counts non-2xx answers and bodies holding
 * `"errors"`, since a GraphQL server answers errors with HTTP 200.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandExists, run } from './proc.js';
import type { VarSpec } from './queries.js';

export async function ensureWrk(log: (m: string) => void): Promise<string | null> {
  if (await commandExists('wrk')) return null;
  if (process.getuid?.() !== 0 || !(await commandExists('apt-get'))) return 'wrk is not installed and cannot be installed here (needs root and apt-get)';
  log('installing wrk with apt-get');
  // Waits for another apt run holding the lock (a fresh machine's own updates) instead of failing.
  const apt = ['-o', 'DPkg::Lock::Timeout=300'];
  const install = await run('apt-get', [...apt, 'install', '-y', '-qq', 'wrk'], { allowFail: true, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (install.code !== 0) {
    await run('apt-get', [...apt, 'update', '-qq'], { allowFail: true });
    await run('apt-get', [...apt, 'install', '-y', '-qq', 'wrk'], { allowFail: true, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  return (await commandExists('wrk')) ? null : 'apt-get could not install wrk';
}

export interface WrkTarget {
  url: string;
  query: string;
  vars: VarSpec[];
  headers: Record<string, string>;
  /** A request header whose value is this variable's (the user id of Q7). */
  headerFromVar?: { header: string; variable: string };
  /**
   * Each connection waits this long (whole ms) after an answer before its next request: a paced
   * load, whose request rate hardly depends on how fast the server answers (see limits-paired.ts).
   */
  delayMs?: number;
  /**
   * Requests per second this wrk run sends, on a fixed schedule (each request claims the next
   * slot, whatever the server's latency); supersedes `delayMs`. Paced by a delay after each answer,
   * an engine that answers a little slower is sent fewer requests, and its CPU per request then
   * rises (fewer requests per event-loop turn), which widens a paired comparison; on a schedule
   * both sides of a phase get the same rate. A run more than four slots behind (every connection
   * busy) drops the slots it missed rather than catching up in a burst: `WrkResult.rps` shows the
   * rate achieved.
   */
  ratePerSecond?: number;
}

export interface WrkResult {
  requests: number;
  durationUs: number;
  rps: number;
  badStatus: number;
  badBody: number;
  socketErrors: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  meanUs: number;
  bytes: number;
}

/** Lua long strings need no escaping as long as the text cannot close them. */
function luaString(s: string): string {
  let eq = '=';
  while (s.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${s}]${eq}]`;
}

/** The script's `delay()`: none (closed loop), a fixed pause after each answer, or a fixed schedule. */
function pacing(target: WrkTarget): string {
  if (target.ratePerSecond !== undefined) {
    const interval = 1000 / target.ratePerSecond;
    // wrk runs LuaJIT, whose ffi reaches the monotonic clock (os.clock is CPU time, os.time whole seconds).
    return `local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } svc_bench_timespec;
int clock_gettime(int clk_id, svc_bench_timespec *tp);
]]
local clock_ts = ffi.new("svc_bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock_ts)
  return tonumber(clock_ts.tv_sec) * 1000 + tonumber(clock_ts.tv_nsec) / 1e6
end
local interval = ${interval}
local next_at = nil
function delay()
  local now = now_ms()
  if next_at == nil or next_at < now - 4 * interval then next_at = now end
  next_at = next_at + interval
  local wait = next_at - now
  if wait < 0 then return 0 end
  return math.floor(wait)
end
`;
  }
  if (target.delayMs === undefined) return '';
  return `function delay()
  return ${Math.max(0, Math.round(target.delayMs))}
end
`;
}

export function wrkScript(target: WrkTarget, seed: number): string {
  const path = new URL(target.url).pathname;
  const head = `{"query":${JSON.stringify(target.query)},"variables":{`;
  const parts = target.vars.map((v, i) => {
    const key = `${i > 0 ? ',' : ''}"${v.name}":`;
    const value = v.kind === 'int' ? `vals[${i + 1}]` : `'"' .. ${luaString(v.prefix)} .. counter .. '"'`;
    return `${luaString(key)} .. ${value}`;
  });
  const gen = target.vars.map((v, i) => (v.kind === 'int' ? `vals[${i + 1}] = math.random(${v.min}, ${v.max})` : '')).join('\n  ');
  const headerLines = Object.entries(target.headers).map(([k, v]) => `headers[ ${luaString(k)} ] = ${luaString(v)}`).join('\n');
  const headerVar = target.headerFromVar
    ? `headers[ ${luaString(target.headerFromVar.header)} ] = tostring(vals[${target.vars.findIndex((v) => v.name === target.headerFromVar!.variable) + 1}])`
    : '';
  return `-- generated by test/bench/wrk.ts
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end
bad_status, bad_body, counter = 0, 0, 0
local headers = {}
${headerLines}
local vals = {}
function init(args)
  math.randomseed(${seed} + (tid or 0) * 7919)
end
function request()
  counter = counter + 1
  ${gen}
  ${headerVar}
  local body = ${luaString(head)}${parts.length ? ' .. ' + parts.join(' .. ') : ''} .. "}}"
  return wrk.format("POST", ${luaString(path)}, headers, body)
end
${pacing(target)}function response(status, hdrs, body)
  if status < 200 or status > 299 then bad_status = bad_status + 1 end
  if string.find(body, '"errors"', 1, true) then bad_body = bad_body + 1 end
end
function done(summary, latency, requests)
  local bs, bb = 0, 0
  for _, t in ipairs(threads) do
    bs = bs + t:get("bad_status")
    bb = bb + t:get("bad_body")
  end
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"bad_status":%d,"bad_body":%d,"socket_errors":%d,"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"bytes":%d}\\n',
    summary.requests, summary.duration, bs, bb, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, summary.bytes))
end
`;
}

export async function runWrk(target: WrkTarget, connections: number, seconds: number, workDir: string, seed: number): Promise<WrkResult> {
  const script = join(workDir, `wrk-${seed}.lua`);
  const threads = connections >= 50 ? 2 : 1;
  // Each wrk thread runs its own Lua state, so its own schedule: the rate is shared out.
  const perThread = target.ratePerSecond === undefined ? target : { ...target, ratePerSecond: target.ratePerSecond / threads };
  writeFileSync(script, wrkScript(perThread, seed));
  const out = await run('wrk', ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, target.url]);
  const line = out.stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk gave no summary:\n${out.stdout}\n${out.stderr}`);
  const j = JSON.parse(line.slice('WRK_JSON '.length));
  return {
    requests: j.requests,
    durationUs: j.duration_us,
    rps: (j.requests * 1e6) / j.duration_us,
    badStatus: j.bad_status,
    badBody: j.bad_body,
    socketErrors: j.socket_errors,
    p50Us: j.p50,
    p90Us: j.p90,
    p99Us: j.p99,
    meanUs: j.mean,
    bytes: j.bytes,
  };
}
