// Package api is the one client of the hosted Model Gateway Service: its
// HTTP transport, the model list, the built-in model catalogue and the single
// classification of every failure into the three conditions the service's
// users are told about.
//
// It owns how gw talks to the service and what a failure means (Error: the
// condition, the specific cause, the remedy as data). It never follows a
// redirect with the key, never repeats the key or anything that looks like a
// credential in an error, never says a fix in words (render does) and knows
// nothing of where the key or the base URL came from.
//
// # How answers are read
//
// Status, codes and words are read together: 401/403 that say which → wrong key or no balance,
// else KindKeyOrBalance; 402 → no balance; 429 → no balance only with quota/balance words, else rate
// limited; 404 on /models (model "") → wrong base URL; 404/400 with model words → misspelled (not in the
// catalogue, fix names the closest id) or not subscribed (in the catalogue); 404 without model words → wrong
// base URL; HTML instead of JSON → wrong base URL or something in front of the service; 5xx → server error
// (no condition); 3xx → wrong base URL or something in between (never followed: every http.Client for the
// service comes from NewHTTPClient, and Client refuses redirects on any other; gw serve's
// httputil.ReverseProxy does not follow them either, it relays the 3xx to its client, which follows it, if
// at all, with its local token).
package api
