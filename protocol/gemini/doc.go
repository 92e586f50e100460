// Package gemini translates the Gemini API (Gemini CLI, through
// @google/genai) onto the service's chat completions: contents and their
// parts (text, inline images and PDFs, function calls and responses),
// systemInstruction, tools and toolConfig, generationConfig (thinkingConfig
// as reasoning_effort), thought parts and thought signatures (the chat
// side's extra_content.google.thought_signature on tool calls),
// usageMetadata, finish reasons, and errors in Google's shape (FromAPIError,
// in the words the translators share: translate.Message; a stream that broke
// off, translate.StreamFailure, ends with Google's error object). FromResponse
// and StreamWriter write the answer, whole or streamed (as chat.Assembler
// reads it). Protocol is one more translate.Protocol; gw serve's loop
// (proxy/relay) drives it.
package gemini
