// Drives the AI SDK (see driver.mjs) with @ai-sdk/anthropic over the
// Messages API or @ai-sdk/openai's responses provider over the Responses
// API, as PROVIDER says; both check every event of the stream against their
// schemas. A turn is streamText (its error part is the result's error, an
// abort part the error of class "abort"), or generateText with whole.
// Tools are never run. reasoning.signature is the Anthropic signature in the
// providerMetadata of the reasoning parts, reasoning.events the signatures
// the stream's reasoning deltas reported, reasoning.sealed the redacted or
// encrypted reasoning; store true leaves the Responses provider to its
// default, which stores and gives the next turn back as item references.
// With raw (anthropic, streamed), native is {events: the raw chunks, gw's
// stream's events as the provider read them, content: the parts streamText
// assembled, as the Messages API blocks they stand for}.
// Usage: node ai-sdk.mjs SDK_DIR PROVIDER
import { requireFrom, baseURL, token, serve, retryHeaders } from "./driver.mjs";

// Warnings (an unknown model's output limit…) are in the start-step part;
// printed, they would mix with the results on stdout.
globalThis.AI_SDK_LOG_WARNINGS = false;

const req = requireFrom(process.argv[2]);
const provider = process.argv[3];
const { streamText, generateText, jsonSchema, tool } = req("ai");
const { createAnthropic } = req("@ai-sdk/anthropic");
const { createOpenAI } = req("@ai-sdk/openai");

function describe(e) {
  if (!(e instanceof Error)) return { class: "Object", message: JSON.stringify(e) };
  if (e.lastError) return { ...describe(e.lastError), class: e.constructor.name, kind: e.reason ?? null, tries: e.errors.length };
  return {
    class: e.constructor.name,
    message: e.message,
    status: e.statusCode ?? null,
    retryable: e.isRetryable ?? null,
    ...(e.responseHeaders ? retryHeaders((k) => e.responseHeaders[k]) : {}),
  };
}

function options(c, abortSignal) {
  const base = baseURL(c);
  const model =
    provider === "anthropic"
      ? createAnthropic({ baseURL: base, apiKey: token })(c.model)
      : createOpenAI({ baseURL: base, apiKey: token }).responses(c.model);
  const messages = [...(c.history ?? [])];
  if (c.results) {
    const content = c.results.map((r) => ({ type: "tool-result", toolCallId: r.id, toolName: r.name, output: { type: "text", value: r.output } }));
    messages.push({ role: "tool", content });
  } else messages.push({ role: "user", content: c.user });
  const o = { anthropic: {}, openai: c.store ? {} : { store: false } };
  let system = c.system;
  if (system && c.cache && provider === "anthropic") {
    messages.unshift({ role: "system", content: system, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } });
    system = undefined;
  }
  if (c.cache && provider === "openai") o.openai.promptCacheKey = c.cache;
  if (c.reasoning) {
    o.anthropic.thinking = { type: "enabled", budgetTokens: 1024 };
    Object.assign(o.openai, { forceReasoning: true, reasoningSummary: "auto", include: ["reasoning.encrypted_content"] });
  }
  const tools = Object.fromEntries((c.tools ?? []).map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters) })]));
  return { model, system, messages, tools, providerOptions: o, maxRetries: c.maxRetries ?? 0, abortSignal };
}

// result reads the parts of an answer: the stream's, or generateText's content.
function result(messages, parts, usage, history) {
  const meta = (p, prov, k) => p.providerMetadata?.[prov]?.[k] ?? "";
  const out = { text: "", calls: [], reasoning: { text: "", signature: "", sealed: "", events: [] } };
  for (const p of parts) {
    switch (p.type) {
      case "text":
      case "text-delta":
        out.text += p.text;
        break;
      case "tool-call":
        out.calls.push({ id: p.toolCallId, name: p.toolName, input: JSON.stringify(p.input) });
        break;
      case "reasoning-delta":
        if (meta(p, "anthropic", "signature")) out.reasoning.events.push(meta(p, "anthropic", "signature"));
      // fall through
      case "reasoning":
        out.reasoning.text += p.text;
      // fall through
      case "reasoning-start":
      case "reasoning-end":
        out.reasoning.signature ||= meta(p, "anthropic", "signature");
        out.reasoning.sealed ||= meta(p, "anthropic", "redactedData") || meta(p, "openai", "reasoningEncryptedContent");
        break;
      case "finish":
        out.finish = p.finishReason;
        break;
      case "error":
        out.error = describe(p.error);
        break;
      case "abort":
        out.error = { class: "abort", message: "" };
        break;
    }
  }
  if (out.error) return out;
  const u = usage;
  out.usage = { prompt: u.inputTokens, output: u.outputTokens, cacheRead: u.inputTokenDetails?.cacheReadTokens ?? null,
    cacheWrite: u.inputTokenDetails?.cacheWriteTokens ?? null, estimate: null };
  out.history = [...messages, ...history];
  return out;
}

await serve(async (c) => {
  if (c.whole) {
    const o = options(c);
    try {
      const r = await generateText(o);
      return result(o.messages, [...r.content, { type: "finish", finishReason: r.finishReason }], r.totalUsage, r.response.messages);
    } catch (e) {
      return { error: describe(e) };
    }
  }
  const abort = new AbortController();
  const o = options(c, abort.signal);
  const s = streamText({ ...o, includeRawChunks: !!c.raw, onError: () => {} }); // the error parts say it
  const parts = [];
  const events = [];
  for await (const p of s.fullStream) {
    if (p.type === "raw") {
      events.push(p.rawValue);
      continue;
    }
    parts.push(p);
    if (c.abortOnText && p.type === "text-delta") abort.abort();
  }
  if (parts.some((p) => p.type === "error" || p.type === "abort")) return result(o.messages, parts);
  const out = result(o.messages, parts, await s.totalUsage, (await s.response).messages);
  if (c.raw) out.native = { events, content: (await s.content).map(messagesBlock) };
  return out;
}, describe);

// messagesBlock is the Messages API block a part of the answer stands for.
function messagesBlock(p) {
  const a = p.providerMetadata?.anthropic ?? {};
  switch (p.type) {
    case "reasoning":
      return a.redactedData != null ? { type: "redacted_thinking", data: a.redactedData } : { type: "thinking", thinking: p.text, signature: a.signature ?? "" };
    case "text":
      return { type: "text", text: p.text };
    case "tool-call":
      return { type: "tool_use", id: p.toolCallId, name: p.toolName, input: p.input };
  }
  return { type: p.type };
}
