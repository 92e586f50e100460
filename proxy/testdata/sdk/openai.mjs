// Drives the openai SDK's responses.stream (see driver.mjs), which assembles
// every event into its snapshot and throws on one that does not fit. A case
// is {params, maxRetries}; the result is the final response, the usage of
// response.created and the reasoning summary deltas, or the error thrown.
// With params.stream false the case is client.responses.create, and the
// result the response. With abortOnText the stream is aborted at its first
// text. A case with api "chat" is a chat completion instead
// (gw serve passes it through), whose result is the completion.
// Usage: node openai.mjs SDK_DIR
import { requireFrom, baseURL, token, recordingFetch, serve, retryHeaders } from "./driver.mjs";

const sdk = requireFrom(process.argv[2])("openai");
const OpenAI = sdk.default ?? sdk;

await serve(
  async ({ api, params, maxRetries, abortOnText }) => {
    const client = new OpenAI({ baseURL, apiKey: token, maxRetries, fetch: recordingFetch });
    if (api === "chat") return { completion: await client.chat.completions.create(params) };
    if (params.stream === false) return { response: await client.responses.create(params) };
    const stream = client.responses.stream(params);
    let createdUsage = null;
    const summaries = [];
    stream.on("response.created", (e) => (createdUsage = e.response.usage ?? null));
    stream.on("response.reasoning_summary_text.delta", (e) => summaries.push(e.delta));
    if (abortOnText) stream.once("response.output_text.delta", () => stream.abort());
    const response = await stream.finalResponse();
    return { response, createdUsage, summaries };
  },
  (e) => ({
    class: e?.constructor?.name,
    isAPIError: e instanceof OpenAI.APIError,
    status: e?.status ?? null,
    type: e?.type ?? null,
    code: e?.code ?? null,
    message: String(e?.message ?? e),
    ...(e?.headers ? retryHeaders((k) => e.headers.get(k)) : {}),
  }),
);
