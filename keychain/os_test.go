package keychain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelgateway/gw/internal/remedy"
)

// A keychain's failure says what went wrong; what to do is its remedy, not words in its message (gw doctor
// shows a cause and a fix: the advice once, in the fix).
func TestKeychainErrors_RemedyNotInMessage(t *testing.T) {
	for _, err := range []error{
		&TimeoutError{Op: "reading the key", Backend: "Secret Service", Timeout: 3 * time.Second},
		&UnavailableError{Backend: "Secret Service", Err: errors.New("no D-Bus session bus")},
	} {
		if r, ok := remedy.Of(err); !ok || r.Do != remedy.RepairKeychain {
			t.Errorf("%T: remedy %+v, want to repair the keychain", err, r)
		}
		if msg := err.Error(); strings.Contains(msg, "gw ") || strings.Contains(msg, "insecure-storage") {
			t.Errorf("%T: message %q gives advice", err, msg)
		}
	}
}
