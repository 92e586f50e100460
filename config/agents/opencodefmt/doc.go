// Package opencodefmt is the config format OpenCode and Kilo (a fork of OpenCode) share: gw's provider
// under provider.<id> with npm @ai-sdk/openai-compatible, options.baseURL and apiKey, and its models with
// their limits, merged into the file without disturbing anything the user wrote (comments, ordering,
// spacing, other providers, line endings and a byte-order mark all survive; a file that cannot be parsed is
// refused untouched), and read back for gw doctor. Format builds each agent's Merge, Inspect and gw run
// route from it; the agents themselves (their files, their names) are config/agents/opencode and kilo.
package opencodefmt
