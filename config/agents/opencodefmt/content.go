package opencodefmt

import "encoding/json"

// Content is a whole config holding only p (and "model"/"small_model" when
// opts names them), as standard JSON: what OPENCODE_CONFIG_CONTENT (and
// Kilo's KILO_CONFIG_CONTENT) take, so an agent can be pointed at gw with
// nothing written to disk.
func Content(p Provider, opts MergeOptions) ([]byte, error) {
	res, err := Merge(nil, p, opts)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(res.Data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
