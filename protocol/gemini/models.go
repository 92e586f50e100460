package gemini

import (
	"net/http"
	"strings"

	tr "github.com/modelgateway/gw/protocol/translate"
)

// model is one entry of the Gemini API's model list.
type model struct {
	Name                       string   `json:"name"`
	BaseModelID                string   `json:"baseModelId"`
	DisplayName                string   `json:"displayName"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
}

var methods = []string{"generateContent", "streamGenerateContent", "countTokens"}

// Models answers GET /v1beta/models (id "") or GET /v1beta/models/{id}
// from the account's model ids: every id is offered by gw serve's
// translation, with the three methods it serves. An id not in the list is
// Google's 404.
func Models(path string, ids []string) tr.Answer {
	act, want, ok := route(path)
	if !ok || (act != actList && act != actGet) {
		return errorAnswer(&tr.Error{Status: http.StatusNotFound, Message: "not a model path: " + path})
	}
	if act == actGet {
		want = strings.TrimPrefix(want, "models/")
		for _, id := range ids {
			if id == want {
				a := tr.JSON(http.StatusOK, jsonType, encode(entry(id)))
				a.Model = id
				return a
			}
		}
		a := errorAnswer(&tr.Error{Status: http.StatusNotFound, Message: "models/" + want + " is not a model of the account's subscription; GET " + Prefix + " lists them"})
		a.Model = want
		return a
	}
	list := struct {
		Models []model `json:"models"`
	}{Models: []model{}}
	for _, id := range ids {
		list.Models = append(list.Models, entry(id))
	}
	return tr.JSON(http.StatusOK, jsonType, encode(list))
}

func entry(id string) model {
	return model{Name: "models/" + id, BaseModelID: id, DisplayName: id, SupportedGenerationMethods: methods}
}
