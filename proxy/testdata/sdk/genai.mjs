// Drives @google/genai over the Gemini API (see driver.mjs), as Gemini CLI
// does: a turn streams with models.generateContentStream
// (:streamGenerateContent), or, with whole, is one
// models.generateContent. reasoning.text is the thought parts' text; a call
// is signed when its part came with a thoughtSignature; the model's turn
// goes back with every part as it came. A case with api "count" counts the
// tokens of its user text instead: native is {totalTokens}.
// Usage: node genai.mjs SDK_DIR
import path from "node:path";
import { pathToFileURL } from "node:url";
import { origin, token, serve } from "./driver.mjs";

const mod = await import(pathToFileURL(path.join(process.argv[2], "node_modules/@google/genai/dist/node/index.mjs")).href);

function params(c, abortSignal) {
  const contents = [...(c.history ?? [])];
  if (c.results) contents.push({ role: "user", parts: c.results.map((r) => ({ functionResponse: { id: r.id, name: r.name, response: { output: r.output } } })) });
  else contents.push({ role: "user", parts: [{ text: c.user }] });
  const config = { abortSignal };
  if (c.system) config.systemInstruction = c.system;
  if (c.tools) config.tools = [{ functionDeclarations: c.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
  if (c.reasoning) config.thinkingConfig = { includeThoughts: true };
  return { model: c.model, contents, config: { ...config, ...c.native } };
}

function result(p, responses) {
  const out = { text: "", chunks: responses.length, calls: [], reasoning: { text: "", signature: "", sealed: "", events: [] } };
  const parts = [];
  let u = null;
  for (const r of responses) {
    const cand = r.candidates?.[0];
    for (const part of cand?.content?.parts ?? []) {
      parts.push(part);
      if (part.thought) out.reasoning.text += part.text ?? "";
      else if (part.text) out.text += part.text;
      if (part.functionCall) {
        const f = part.functionCall;
        out.calls.push({ id: f.id, name: f.name, input: JSON.stringify(f.args ?? {}), signed: !!part.thoughtSignature });
      }
    }
    if (cand?.finishReason) out.finish = cand.finishReason;
    if (r.usageMetadata) u = r.usageMetadata;
  }
  out.usage = u && { prompt: u.promptTokenCount, output: u.candidatesTokenCount, cacheRead: u.cachedContentTokenCount ?? null,
    cacheWrite: null, estimate: null, total: u.totalTokenCount };
  out.history = [...p.contents, { role: "model", parts }];
  return out;
}

await serve(
  async (c) => {
    const ai = new mod.GoogleGenAI({ apiKey: token, httpOptions: { baseUrl: origin(c) } });
    if (c.api === "count") return { native: { totalTokens: (await ai.models.countTokens({ model: c.model, contents: c.user })).totalTokens } };
    const abort = new AbortController();
    const p = params(c, abort.signal);
    if (c.whole) return result(p, [await ai.models.generateContent(p)]);
    const responses = [];
    for await (const r of await ai.models.generateContentStream(p)) {
      responses.push(r);
      if (c.abortOnText && r.candidates?.[0]?.content?.parts?.some((x) => x.text && !x.thought)) abort.abort();
    }
    return result(p, responses);
  },
  (e) => ({ class: e?.name ?? e?.constructor?.name, status: e?.status ?? null, message: String(e?.message ?? e) }),
);
