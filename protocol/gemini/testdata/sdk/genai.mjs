// Drives gw serve's Gemini API with the official @google/genai client, as
// Gemini CLI does: GENAI_DIR is the directory holding node_modules, BASE_URL
// gw serve's origin, MODEL the model. Prints one JSON object of what the
// client read.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const mod = await import(pathToFileURL(path.join(process.env.GENAI_DIR, 'node_modules/@google/genai/dist/node/index.mjs')).href);
const ai = new mod.GoogleGenAI({ apiKey: 'gw-local-sdk', httpOptions: { baseUrl: process.env.BASE_URL } });
const model = process.env.MODEL;
const out = {};

const tools = [{ functionDeclarations: [{
  name: 'read_file', description: 'Reads a file.',
  parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
}] }];

try {
  switch (process.env.SCENARIO) {
    case 'stream': {
      let text = '', usage = null, finish = null, chunks = 0;
      const stream = await ai.models.generateContentStream({ model, contents: 'say hello',
        config: { thinkingConfig: { includeThoughts: true } } });
      for await (const c of stream) {
        chunks++;
        text += c.text ?? '';
        if (c.usageMetadata) usage = c.usageMetadata;
        if (c.candidates?.[0]?.finishReason) finish = c.candidates[0].finishReason;
      }
      Object.assign(out, { text, usage, finish, chunks });
      break;
    }
    case 'tools': {
      const first = await ai.models.generateContentStream({ model, contents: 'Use the read_file tool on `notes.txt`', config: { tools } });
      let calls = [], parts = [];
      for await (const c of first) {
        calls.push(...(c.functionCalls ?? []));
        // The call's part as it came, with its thoughtSignature: Gemini 3
        // refuses a call given back without it, and so does the stand-in.
        parts.push(...(c.candidates?.[0]?.content?.parts ?? []).filter((p) => p.functionCall));
      }
      const call = calls[0];
      out.signed = parts.length > 0 && !!parts[0].thoughtSignature;
      const second = await ai.models.generateContent({ model, config: { tools }, contents: [
        { role: 'user', parts: [{ text: 'Use the read_file tool on `notes.txt`' }] },
        { role: 'model', parts: parts.length ? parts : [{ functionCall: call }] },
        { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: 'PINEAPPLE-42' } } }] },
      ] });
      Object.assign(out, { calls, answer: second.text, usage: second.usageMetadata });
      break;
    }
    case 'count': {
      const r = await ai.models.countTokens({ model, contents: 'how many tokens is this' });
      out.totalTokens = r.totalTokens;
      break;
    }
    case 'error': {
      await ai.models.generateContent({ model, contents: 'hi' });
      out.noError = true;
      break;
    }
    case 'streamError': {
      const stream = await ai.models.generateContentStream({ model, contents: 'hi' });
      for await (const c of stream) { out.text = (out.text ?? '') + (c.text ?? ''); }
      out.noError = true;
      break;
    }
  }
} catch (e) {
  out.error = { name: e.name, status: e.status, message: String(e.message) };
}
console.log(JSON.stringify(out));
