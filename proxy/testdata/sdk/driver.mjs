// What the SDK drivers share. A driver reads one case a line (JSON) on
// stdin, runs it with its SDK against gw serve at GW_BASE_URL (ending in
// /v1) with gw's local token GW_TOKEN, and writes the result as one JSON
// line on stdout. Besides what the SDK gave, a result lists what the client
// saw of each HTTP attempt (its status and retry headers, read through the
// SDK's fetch option) and the delays the SDK gave its sleep before each
// retry: recorded when asked for, not timed.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

export const baseURL = process.env.GW_BASE_URL;
export const token = process.env.GW_TOKEN;
if (!baseURL || !token) {
  console.error("GW_BASE_URL and GW_TOKEN must be set");
  process.exit(2);
}

// requireFrom loads packages from the node_modules of an SDK directory.
export const requireFrom = (dir) => createRequire(path.join(dir, "noop.js"));

let attempts = [];
let sleeps = [];

// recordingFetch is the fetch the SDK is given.
export async function recordingFetch(url, init) {
  const res = await fetch(url, init);
  const h = (k) => res.headers.get(k);
  attempts.push({ status: res.status, retryAfter: h("retry-after"), retryAfterMs: h("retry-after-ms"), shouldRetry: h("x-should-retry") });
  return res;
}

// The SDKs wait between attempts in a function named sleep (@anthropic-ai/sdk,
// openai) or delay (the AI SDK) that calls setTimeout.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = function (fn, ms, ...args) {
  if (/\n\s+at (sleep|delay) /.test(new Error().stack)) sleeps.push(ms);
  return realSetTimeout(fn, ms, ...args);
};

// serve runs the cases read on stdin with run(case), one at a time.
export async function serve(run, describe) {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    attempts = [];
    sleeps = [];
    let out;
    try {
      out = await run(JSON.parse(line));
    } catch (e) {
      out = { error: describe(e) };
    }
    process.stdout.write(JSON.stringify({ ...out, attempts, sleeps }) + "\n");
  }
}

// retryHeaders picks the retry headers of an error, read with get.
export function retryHeaders(get) {
  return { retryAfter: get("retry-after") ?? null, retryAfterMs: get("retry-after-ms") ?? null };
}
