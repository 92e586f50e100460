package cmdutil

import (
	"context"
	"fmt"
	"time"

	"github.com/modelgateway/gw/api"
	"github.com/modelgateway/gw/internal/remedy"
)

// FlagModelError is a model id given to flag that the account cannot use (e, from api.ModelError): "flag:
// why", carrying e's remedy, which ErrorWithFix says on the fix line.
func FlagModelError(flag string, e *api.Error) error {
	return remedy.With(fmt.Errorf("%s: %s", flag, e.Cause), e.Fix)
}

// ModelListTimeout bounds ListModels' call to the service.
const ModelListTimeout = 15 * time.Second

// ListModels fetches the account's models, with a spinner on a terminal, and joins them with the
// catalogue (api.JoinCatalog): what gw models lists and gw init offers. baseURL is the --base-url flag;
// a failure's fix is worded for where the base URL and the key came from.
func (f *Factory) ListModels(ctx context.Context, baseURL string) ([]api.JoinedModel, error) {
	base, src, err := f.BaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	key, err := f.Key(ctx, KeyOptions{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, ModelListTimeout)
	defer cancel()
	stop := f.IOStreams.StartSpinner("Fetching models")
	listed, err := f.APIClient(base, key.Key, 0).Models(ctx)
	stop()
	if err != nil {
		return nil, WithFixFrom(err, src, key.Source)
	}
	return api.JoinCatalog(listed), nil
}
