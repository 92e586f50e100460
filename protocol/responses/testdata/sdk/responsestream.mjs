// Streams one response from the Responses API at GW_BASE_URL with the
// official openai SDK's responses.stream, which assembles every event into
// its snapshot (and throws on one that does not fit), and prints the final
// response and the reasoning summary deltas it reported as JSON on stdout.
// Usage: node responsestream.mjs SDK_DIR
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.argv[2], "noop.js"));
const OpenAI = require("openai").default ?? require("openai");

const client = new OpenAI({ baseURL: process.env.GW_BASE_URL, apiKey: "test-not-a-key", maxRetries: 0 });
const summaries = [];
try {
  const stream = client.responses.stream({
    model: "m",
    input: "go",
    store: false,
    include: ["reasoning.encrypted_content"],
    reasoning: { summary: "auto" },
  });
  stream.on("response.reasoning_summary_text.delta", (e) => summaries.push(e.delta));
  const response = await stream.finalResponse();
  process.stdout.write(JSON.stringify({ output: response.output, summaries }));
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e) }));
  process.exitCode = 1;
}
