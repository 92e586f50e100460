// What the SDK drivers share. A driver reads one case a line (JSON) on
// stdin, runs it with its SDK against gw serve at GW_BASE_URL (ending in
// /v1; a case's base overrides it) with gw's local token GW_TOKEN, and
// writes the result as one JSON line on stdout, in the same terms for every
// SDK (see sdk_test.go). A case is the next turn of a conversation:
//   {model, system, cache, history, user | results, tools, reasoning, whole,
//    maxRetries, abortOnText, store, previous, native, api, base, raw}
// history is the conversation so far in the SDK's own terms (a result's
// history, sent back as it came), results the outputs of the last turn's
// tool calls ({id, name, output}), native what the protocol's request
// takes beside; raw (Messages API drivers, streamed) asks for the result's
// native to be {events, content}: the events of gw's stream as the SDK
// read them, and the content blocks the SDK assembled, as Messages API
// blocks. A result is
//   {text, finish, chunks, calls: [{id, name, input, signed}],
//    reasoning: {text, signature, sealed, events}, usage: {prompt, output,
//    cacheRead, cacheWrite, estimate}, history, id, stored, error, native}
// and, read through fetch, what the client saw of each HTTP attempt (its
// status and retry headers) and the delays the SDK gave its sleep before
// each retry: recorded when asked for, not timed.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const envBase = process.env.GW_BASE_URL;
export const token = process.env.GW_TOKEN;
if (!envBase || !token) {
  console.error("GW_BASE_URL and GW_TOKEN must be set");
  process.exit(2);
}

// baseURL is gw serve's /v1 for a case; origin the same without /v1.
export const baseURL = (c) => c.base ?? envBase;
export const origin = (c) => baseURL(c).replace(/\/v1$/, "");

// requireFrom loads packages from the node_modules of an SDK directory.
export const requireFrom = (dir) => createRequire(path.join(dir, "noop.js"));

let attempts = [];
let sleeps = [];

// Every SDK fetches through the global fetch, or is given it.
const realFetch = globalThis.fetch;
export async function recordingFetch(url, init) {
  const res = await realFetch(url, init);
  const h = (k) => res.headers.get(k);
  attempts.push({ status: res.status, retryAfter: h("retry-after"), retryAfterMs: h("retry-after-ms"), shouldRetry: h("x-should-retry") });
  return res;
}
globalThis.fetch = recordingFetch;

// The SDKs wait between attempts in a function named sleep (@anthropic-ai/sdk,
// openai) or delay (the AI SDK) that calls setTimeout.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = function (fn, ms, ...args) {
  if (/\n\s+at (sleep|delay) /.test(new Error().stack)) sleeps.push(ms);
  return realSetTimeout(fn, ms, ...args);
};

// serve runs the cases read on stdin with run(case), one at a time;
// describe turns what run threw into the result's error.
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

// args is a tool call's input as JSON text, whatever form the SDK gave.
export const args = (v) => (typeof v === "string" ? v : JSON.stringify(v ?? {}));
