// Drives @anthropic-ai/sdk over the Messages API (see driver.mjs): a turn
// streams with client.messages.stream (MessageStream), which checks every
// event as it assembles the message, or, with whole, is one
// client.messages.create. usage.estimate is message_start's input tokens,
// reasoning.events the signatures the stream reported. With raw, native
// is {events: every event of gw's stream as the SDK read it, content: the
// blocks the SDK assembled}. A case with api
// "models" lists the models instead (native.limit a page, the SDK paging on)
// and retrieves each one listed by its id: native is {models, retrieved}.
// Usage: node anthropic.mjs SDK_DIR
import { requireFrom, origin, token, serve, retryHeaders } from "./driver.mjs";

const sdk = requireFrom(process.argv[2])("@anthropic-ai/sdk");
const Anthropic = sdk.default ?? sdk;

function params(c) {
  const messages = [...(c.history ?? [])];
  if (c.results) messages.push({ role: "user", content: c.results.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output })) });
  else messages.push({ role: "user", content: c.user });
  const p = { model: c.model, max_tokens: 1024, messages };
  if (c.system) p.system = [{ type: "text", text: c.system, ...(c.cache ? { cache_control: { type: "ephemeral" } } : {}) }];
  if (c.tools) p.tools = c.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (c.reasoning) p.thinking = { type: "enabled", budget_tokens: 512 };
  return { ...p, ...c.native };
}

function result(p, m, estimate, events) {
  const of = (k) => m.content.filter((b) => b.type === k);
  const thinking = of("thinking");
  const u = m.usage;
  return {
    text: of("text").map((b) => b.text).join(""),
    finish: m.stop_reason,
    calls: of("tool_use").map((b) => ({ id: b.id, name: b.name, input: JSON.stringify(b.input) })),
    reasoning: {
      text: thinking.map((b) => b.thinking).join(""),
      signature: thinking.map((b) => b.signature).join(""),
      sealed: of("redacted_thinking").map((b) => b.data).join(""),
      events,
    },
    // The Messages API counts the cache apart from input_tokens.
    usage: {
      prompt: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
      output: u.output_tokens,
      cacheRead: u.cache_read_input_tokens ?? null,
      cacheWrite: u.cache_creation_input_tokens ?? null,
      estimate,
    },
    history: [...p.messages, { role: "assistant", content: m.content }],
  };
}

await serve(
  async (c) => {
    const client = new Anthropic({ baseURL: origin(c), apiKey: token, maxRetries: c.maxRetries ?? 0 });
    if (c.api === "models") {
      const models = [];
      for await (const m of client.models.list(c.native)) models.push(m);
      const retrieved = [];
      for (const m of models) retrieved.push(await client.models.retrieve(m.id));
      return { native: { models, retrieved } };
    }
    const p = params(c);
    if (c.whole) return result(p, await client.messages.create(p), null, []);
    const stream = client.messages.stream(p);
    let estimate = null;
    const events = [];
    const raw = [];
    stream.on("streamEvent", (ev) => {
      if (ev.type === "message_start") estimate = ev.message.usage.input_tokens;
      if (c.raw) raw.push(structuredClone(ev));
    });
    stream.on("signature", (s) => events.push(s));
    if (c.abortOnText) stream.once("text", () => stream.abort());
    const m = await stream.finalMessage();
    return { ...result(p, m, estimate, events), ...(c.raw ? { native: { events: raw, content: m.content } } : {}) };
  },
  (e) => ({
    class: e?.constructor?.name,
    status: e?.status ?? null,
    kind: e?.type ?? null,
    message: e?.apiMessage ?? String(e?.message ?? e),
    ...(e?.headers ? retryHeaders((k) => e.headers.get(k)) : {}),
  }),
);
