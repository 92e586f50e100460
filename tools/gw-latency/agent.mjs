// The agent of gw-latency: a long-lived Node process using the official
// openai SDK with its defaults (its fetch, its keep-alive pool), as coding
// agents do. It reads one JSON command a line on stdin and answers each with
// one JSON line:
//   {"op":"client","id":ID,"baseURL":URL,"apiKey":KEY}  makes a client
//   {"op":"run","id":ID,"n":N,"model":M}                N streamed chat completions at once
// A run answers {"id":ID,"ms":[...]}: for each stream the milliseconds from
// the call to its first content token, or {"id":ID,"error":"..."}.
// Usage: node agent.mjs SDK_DIR
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const sdk = createRequire(path.join(process.argv[2], "noop.js"))("openai");
const OpenAI = sdk.default ?? sdk;
const clients = new Map();

async function firstToken(client, model) {
  const t0 = performance.now();
  const stream = await client.chat.completions.create({
    model,
    stream: true,
    messages: [{ role: "user", content: "Say hello." }],
  });
  let first = -1;
  for await (const chunk of stream) {
    if (first < 0 && chunk.choices?.[0]?.delta?.content) first = performance.now() - t0;
  }
  if (first < 0) throw new Error("the stream carried no content");
  return first;
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  const cmd = JSON.parse(line);
  try {
    if (cmd.op === "client") {
      clients.set(cmd.id, new OpenAI({ baseURL: cmd.baseURL, apiKey: cmd.apiKey }));
      process.stdout.write(JSON.stringify({ id: cmd.id }) + "\n");
      return;
    }
    const client = clients.get(cmd.id);
    const ms = await Promise.all(Array.from({ length: cmd.n }, () => firstToken(client, cmd.model)));
    process.stdout.write(JSON.stringify({ id: cmd.id, ms }) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ id: cmd.id, error: String(e?.message ?? e) }) + "\n");
  }
});
rl.on("close", () => process.exit(0));
