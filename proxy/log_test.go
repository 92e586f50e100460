package proxy

import (
	"strings"
	"testing"
	"time"
)

func TestTimestampMatchesTheLayout(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000Z07:00"
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600),
		time.FixedZone("odd", -(3*3600 + 25*60))}
	times := []time.Time{
		time.Date(2026, 11, 21, 6, 5, 37, 123456789, time.UTC),
		time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC), // past the 4-digit fast path
		time.Now(),
	}
	for _, z := range zones {
		for _, tm := range times {
			tm = tm.In(z)
			if got, want := string(appendTimestamp(nil, tm)), tm.Format(layout); got != want {
				t.Errorf("%v: got %s, want %s", tm, got, want)
			}
		}
	}
}

func TestDurationMatchesString(t *testing.T) {
	ds := []time.Duration{0, 1500 * time.Nanosecond, time.Second, 90 * time.Second, -time.Millisecond}
	for us := time.Duration(0); us < 5*time.Millisecond; us += 7 * time.Microsecond {
		ds = append(ds, us)
	}
	for _, ms := range []int{1, 10, 100, 999} {
		for _, us := range []int{0, 1, 10, 100, 120, 999} {
			ds = append(ds, time.Duration(ms)*time.Millisecond+time.Duration(us)*time.Microsecond)
		}
	}
	for _, d := range ds {
		if got, want := string(appendDuration(nil, d)), d.String(); got != want {
			t.Errorf("%d ns: got %s, want %s", int64(d), got, want)
		}
	}
}

func TestLogFieldsCannotForgeALine(t *testing.T) {
	cases := map[string]string{
		"/v1/models":                 "/v1/models",
		"vendor-é/modèle":            "vendor-é/modèle",
		"":                           `""`,
		"/v1/x status=200":           `"/v1/x status=200"`,
		"a=b":                        `"a=b"`,
		"new\nline":                  `"new\nline"`,
		"tab\t":                      `"tab\t"`,
		"del\x7f":                    `"del\x7f"`,
		"nbsp\u00a0":                 `"nbsp\u00a0"`,
		`quote"`:                     `"quote\""`,
		strings.Repeat("m", 300):     strings.Repeat("m", 200) + "…",
		"é" + strings.Repeat(" ", 2): `"é  "`,
	}
	for in, want := range cases {
		if got := string(appendField(nil, in)); got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
	}
}
