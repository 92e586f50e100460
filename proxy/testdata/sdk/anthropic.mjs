// Drives @anthropic-ai/sdk's MessageStream (see driver.mjs). A case is
// {params, maxRetries}: params go to client.messages.stream as they are;
// the result is the message the SDK assembled, the usage of message_start
// and the signatures it reported, or the error it threw. With params.stream
// false the case is client.messages.create instead, and the result the
// message. With abortOnText the stream is aborted at its first text. A case
// with api "models" lists the models instead, params.limit a page, the SDK
// paging on, and retrieves each one listed by its id.
// Usage: node anthropic.mjs SDK_DIR
import { requireFrom, baseURL, token, recordingFetch, serve, retryHeaders } from "./driver.mjs";

const sdk = requireFrom(process.argv[2])("@anthropic-ai/sdk");
const Anthropic = sdk.default ?? sdk;
// The Anthropic base URL has no /v1.
const root = baseURL.replace(/\/v1$/, "");

await serve(
  async ({ api, params, maxRetries, abortOnText }) => {
    const client = new Anthropic({ baseURL: root, apiKey: token, maxRetries, fetch: recordingFetch });
    if (api === "models") {
      const models = [];
      for await (const m of client.models.list(params)) models.push(m);
      const retrieved = [];
      for (const m of models) retrieved.push(await client.models.retrieve(m.id));
      return { models, retrieved };
    }
    if (params.stream === false) return { message: await client.messages.create(params) };
    const stream = client.messages.stream(params);
    let startUsage = null;
    const signatures = [];
    stream.on("streamEvent", (ev) => {
      // A copy: the SDK updates the snapshot of the message in place.
      if (ev.type === "message_start") startUsage = structuredClone(ev.message.usage);
    });
    stream.on("signature", (s) => signatures.push(s));
    if (abortOnText) stream.once("text", () => stream.abort());
    const message = await stream.finalMessage();
    return { message, startUsage, signatures };
  },
  (e) => ({
    class: e?.constructor?.name,
    isAPIError: e instanceof Anthropic.APIError,
    status: e?.status ?? null,
    type: e?.type ?? null,
    message: e?.apiMessage ?? String(e?.message ?? e),
    ...(e?.headers ? retryHeaders((k) => e.headers.get(k)) : {}),
  }),
);
