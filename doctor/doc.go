// Package doctor walks the path from gw's configuration to a working model and reports, check by check, what
// works and what does not: config → base URL → DNS → TCP → TLS → HTTP /models without and with the key → the
// model list → each model id, plus every coding agent's config (one check for all of them, each file read
// the way its agent reads it: config/agents), the local proxy and where the key is kept.
//
// Every check runs and none stops the others: a check that cannot run because one before it failed is
// reported as skipped, saying why. Independent checks run concurrently and every network step is bounded, so
// Run answers within Input.Timeout (15 s by default) even when the network hangs.
//
// It owns the checks and what each finds, as data: a Check's fix is a remedy, said by cmd/doctor through
// render. It never reads the process environment, the keychain or the config itself (Input carries what the
// command resolved, Getenv included), never holds a sentence of the command line, and never changes a file.
//
// # The checks
//
// Check ids, in report order: config, base_url, dns, tcp, tls, http, key, models,
// model:<id>…, agent_config, proxy, keychain. A base URL other than CanonicalURL is a warning when
// it came from --base-url or when a service answers there, and a service unreachable failure when it came
// from GW_BASE_URL/the config file and nothing answers. A malformed base URL with a safe correction fails
// base_url, and the network checks then run against the corrected URL (their detail says so).
package doctor
