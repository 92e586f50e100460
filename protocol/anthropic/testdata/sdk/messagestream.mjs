// Streams one answer from the Messages API at GW_BASE_URL with the official
// SDK's MessageStream and prints the message it assembled, and the
// signatures it reported, as JSON on stdout. Usage: node messagestream.mjs SDK_DIR
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.argv[2], "noop.js"));
const Anthropic = require("@anthropic-ai/sdk").default ?? require("@anthropic-ai/sdk");

const client = new Anthropic({ baseURL: process.env.GW_BASE_URL, apiKey: "test-not-a-key", maxRetries: 0 });
const stream = client.messages.stream({
  model: "m",
  max_tokens: 100,
  thinking: { type: "enabled", budget_tokens: 1024 },
  messages: [{ role: "user", content: "go" }],
});
const signatures = [];
stream.on("signature", (s) => signatures.push(s));
try {
  const message = await stream.finalMessage();
  process.stdout.write(JSON.stringify({ message, signatures }));
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e) }));
  process.exitCode = 1;
}
