package remedy

import (
	"errors"
	"fmt"
	"testing"
)

type carrier struct{ fix Remedy }

func (c carrier) Error() string  { return "failed" }
func (c carrier) Remedy() Remedy { return c.fix }

func TestOf(t *testing.T) {
	top := Remedy{Do: TopUp}
	for name, tc := range map[string]struct {
		err  error
		want Action
	}{
		"nil":                      {nil, ""},
		"no remedy":                {errors.New("x"), ""},
		"the error's own":          {carrier{top}, TopUp},
		"wrapped":                  {fmt.Errorf("login: %w", carrier{top}), TopUp},
		"the outer one wins":       {With(fmt.Errorf("x: %w", carrier{top}), Remedy{Do: RunDoctor}), RunDoctor},
		"a zero one is passed by":  {fmt.Errorf("x: %w", With(carrier{top}, Remedy{})), TopUp},
		"in a join, the first one": {errors.Join(errors.New("a"), carrier{top}, With(errors.New("b"), Remedy{Do: RunDoctor})), TopUp},
	} {
		r, ok := Of(tc.err)
		if r.Do != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: Of = %+v, %v; want %q", name, r, ok, tc.want)
		}
	}
	if With(nil, top) != nil {
		t.Error("With(nil, …) is not nil")
	}
	err := With(errors.New("the message"), top)
	if err.Error() != "the message" || errors.Unwrap(err) == nil {
		t.Errorf("With changed the message or the chain: %q", err)
	}
}

func TestSteps(t *testing.T) {
	r := Steps(Remedy{}, Remedy{Do: InitAgent}, Remedy{}, Remedy{Do: Say, Value: "b"})
	if r.Do != InitAgent || len(r.Then) != 1 || r.Then[0].Value != "b" {
		t.Errorf("Steps = %+v", r)
	}
	if !Steps().IsZero() || !Steps(Remedy{}).IsZero() {
		t.Error("no steps is not zero")
	}
}
