package models

import (
	"context"
	"strings"
	"testing"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/cmd/cmdutil"
	"github.com/modelgateway/gw/cmd/cmdutil/cmdtest"
	"github.com/modelgateway/gw/standin"
)

func TestNewCmdModels_Flags(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		check   func(*ModelsOptions) bool
	}{
		{args: []string{"--json"}, check: func(o *ModelsOptions) bool { return o.JSON }},
		{args: []string{"--pick", "--multi"}, check: func(o *ModelsOptions) bool { return o.Pick && o.Multi }},
		{args: []string{"--pick", "--json"}, wantErr: "--pick and --json cannot be used together"},
		{args: []string{"--multi"}, wantErr: "--multi goes with --pick"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := cmdtest.New(t)
			var got *ModelsOptions
			cmd := NewCmdModels(e.Factory, func(_ context.Context, o *ModelsOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage {
					t.Fatalf("err = %v, want usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err = %v, options %+v", err, got)
			}
		})
	}
}

func TestModelsRun_TerminalTable(t *testing.T) {
	e := cmdtest.New(t)
	e.StartService(t, standin.Options{})
	e.Vars["GW_API_KEY"] = standin.DemoKeyPartial
	e.IO.SetStdoutTTY(true)
	if err := modelsRun(context.Background(), &ModelsOptions{IO: e.IO, Models: e.Factory.ListModels}); err != nil {
		t.Fatal(err)
	}
	want := `ID                                NAME                     CONTEXT  
vendor-a/model-a-sonnet-4.5       Model A Sonnet 4.5       200K     
vendor-a/model-a-haiku-4.5        Model A Haiku 4.5        200K     
vendor-b/model-b-3-flash-preview  Model B 3 Flash Preview  1M       

Not in your subscription: vendor-a/model-a-opus-4.6, vendor-a/model-a-opus-4.5-thinking, vendor-a/model-a-sonnet-4.6, vendor-a/model-a-sonnet-4.5-thinking, vendor-b/model-b-3-pro-preview
`
	if e.Out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", e.Out, want)
	}
}

// --pick without a terminal is refused before the service is asked: the list (a fake that fails the test if
// called) is never fetched, so no spinner, no key lookup and no request happen for a command that cannot run.
func TestModelsRun_PickWithoutTerminalAsksNothing_FakeModels(t *testing.T) {
	e := cmdtest.New(t)
	o := &ModelsOptions{IO: e.IO, Pick: true, Models: func(context.Context, string) ([]api.JoinedModel, error) {
		t.Fatal("the models were fetched")
		return nil, nil
	}}
	err := modelsRun(context.Background(), o)
	if cmdutil.ExitCodeFor(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--pick needs a terminal") {
		t.Fatalf("err = %v", err)
	}
}
