// Drives the AI SDK's streamText with @ai-sdk/anthropic (the Messages API)
// or @ai-sdk/openai's responses provider (see driver.mjs); both check every
// event of the stream against their schemas. A case is {provider, model,
// system, messages, tools, providerOptions, maxRetries}, tools as
// {name: {description, parameters (a JSON schema)}} and never run; the
// result is the stream's parts (errors described), the total usage, the
// provider metadata and the response's messages, which the next turn sends
// back as they are. With stream false the case is generateText instead, and
// the parts are the content of its answer, then a finish part.
// Usage: node ai-sdk.mjs SDK_DIR
import { requireFrom, baseURL, token, recordingFetch, serve, retryHeaders } from "./driver.mjs";

// Warnings (an unknown model's output limit…) are in the start-step part;
// printed, they would mix with the results on stdout.
globalThis.AI_SDK_LOG_WARNINGS = false;

const req = requireFrom(process.argv[2]);
const { streamText, generateText, jsonSchema, tool } = req("ai");
const { createAnthropic } = req("@ai-sdk/anthropic");
const { createOpenAI } = req("@ai-sdk/openai");

function describe(e) {
  if (!(e instanceof Error)) return { class: "Object", data: e };
  return {
    class: e.constructor.name,
    message: e.message,
    statusCode: e.statusCode ?? null,
    isRetryable: e.isRetryable ?? null,
    reason: e.reason ?? null,
    ...(e.responseHeaders ? retryHeaders((k) => e.responseHeaders[k]) : {}),
    ...(e.lastError ? { errors: e.errors.length, lastError: describe(e.lastError) } : {}),
  };
}

await serve(async (c) => {
  const model =
    c.provider === "anthropic"
      ? createAnthropic({ baseURL, apiKey: token, fetch: recordingFetch })(c.model)
      : createOpenAI({ baseURL, apiKey: token, fetch: recordingFetch }).responses(c.model);
  const tools = Object.fromEntries(
    Object.entries(c.tools ?? {}).map(([n, t]) => [n, tool({ description: t.description, inputSchema: jsonSchema(t.parameters) })]),
  );
  const options = { model, system: c.system, messages: c.messages, tools, providerOptions: c.providerOptions, maxRetries: c.maxRetries };
  if (c.stream === false) {
    try {
      const r = await generateText(options);
      const parts = [...r.content, { type: "finish", finishReason: r.finishReason }];
      return { parts, usage: r.totalUsage, messages: r.response.messages };
    } catch (e) {
      return { parts: [{ type: "error", error: describe(e) }] };
    }
  }
  const result = streamText({ ...options, onError: () => {} }); // the error parts say it
  const parts = [];
  for await (const p of result.fullStream) {
    if (p.type === "error") parts.push({ type: "error", error: describe(p.error) });
    else if (p.type === "start-step") parts.push({ type: p.type, warnings: p.warnings }); // not the request body
    else parts.push(p);
  }
  const out = { parts };
  if (!parts.some((p) => p.type === "error")) {
    out.usage = await result.totalUsage;
    out.providerMetadata = (await result.providerMetadata) ?? null;
    out.messages = (await result.response).messages;
  }
  return out;
}, describe);
