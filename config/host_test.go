package config

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "LocalHost": true, "127.0.0.2": true,
		"0.0.0.0": false, "::": false, "192.168.1.2": false, "example.com": false, "localhost.example.com": false, "[::1]": false, "": false} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
