// Drives the openai SDK over the Responses API (see driver.mjs): a turn
// streams with client.responses.stream, which assembles every event into
// its snapshot and throws on one that does not fit, or, with whole,
// is one client.responses.create. A failed response is the result's error
// (class "ResponseFailed"); usage.estimate is response.created's input
// tokens, reasoning.events the summary deltas. A case with api "chat" is a
// chat completion of native instead (gw serve passes it through).
// Usage: node openai.mjs SDK_DIR
import { requireFrom, baseURL, token, serve, retryHeaders } from "./driver.mjs";

const sdk = requireFrom(process.argv[2])("openai");
const OpenAI = sdk.default ?? sdk;

function params(c) {
  const input = [...(c.history ?? [])];
  if (c.results) input.push(...c.results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.output })));
  else input.push({ role: "user", content: c.user });
  const p = { model: c.model, input, store: c.store ?? false };
  if (c.system) p.instructions = c.system;
  if (c.cache) p.prompt_cache_key = c.cache;
  if (c.previous) p.previous_response_id = c.previous;
  if (c.tools) p.tools = c.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters }));
  if (c.reasoning) Object.assign(p, { include: ["reasoning.encrypted_content"], reasoning: { summary: "auto" } });
  return { ...p, ...c.native };
}

function result(p, r, estimate, events) {
  if (r.status === "failed") return { error: { class: "ResponseFailed", kind: r.error?.code ?? null, message: r.error?.message ?? "" } };
  const of = (k) => r.output.filter((it) => it.type === k);
  const reasoning = of("reasoning");
  const u = r.usage;
  return {
    text: of("message").flatMap((m) => m.content.filter((c) => c.type === "output_text").map((c) => c.text)).join(""),
    finish: r.status,
    calls: of("function_call").map((it) => ({ id: it.call_id, name: it.name, input: it.arguments })),
    reasoning: {
      text: reasoning.flatMap((it) => [...(it.summary ?? []), ...(it.content ?? [])].map((s) => s.text)).join(""),
      signature: "",
      sealed: reasoning.map((it) => it.encrypted_content ?? "").join(""),
      events,
    },
    usage: u && { prompt: u.input_tokens, output: u.output_tokens, cacheRead: u.input_tokens_details?.cached_tokens ?? null, cacheWrite: null, estimate },
    history: [...p.input, ...r.output],
    id: r.id,
    stored: r.store,
  };
}

await serve(
  async (c) => {
    const client = new OpenAI({ baseURL: baseURL(c), apiKey: token, maxRetries: c.maxRetries ?? 0 });
    if (c.api === "chat") return { native: await client.chat.completions.create(c.native) };
    const p = params(c);
    if (c.whole) return result(p, await client.responses.create(p), null, []);
    const stream = client.responses.stream(p);
    let estimate = null;
    const events = [];
    stream.on("response.created", (e) => (estimate = e.response.usage?.input_tokens ?? null));
    stream.on("response.reasoning_summary_text.delta", (e) => events.push(e.delta));
    if (c.abortOnText) stream.once("response.output_text.delta", () => stream.abort());
    return result(p, await stream.finalResponse(), estimate, events);
  },
  (e) => ({
    class: e?.constructor?.name,
    status: e?.status ?? null,
    kind: e?.code ?? null,
    message: String(e?.message ?? e),
    ...(e?.headers ? retryHeaders((k) => e.headers.get(k)) : {}),
  }),
);
