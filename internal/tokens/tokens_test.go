package tokens

import "testing"

func TestFormat(t *testing.T) {
	for in, want := range map[int]string{
		0: "", -1: "", 200_000: "200K", 128_000: "128K", 1_000_000: "1M", 1_048_576: "1M", 2_000_000: "2M",
		1_500_000: "1.5M", 999_999: "1M", 999_499: "999K", 8_192: "8K", 1_000: "1K", 999: "999", 500: "500",
	} {
		if got := Format(in); got != want {
			t.Errorf("Format(%d) = %q, want %q", in, got, want)
		}
	}
}
