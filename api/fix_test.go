package api

import "github.com/modelgateway/gw/internal/remedy/render"

// fixText is e's remedy in the words of a command whose base URL came from the config file.
func fixText(e *Error) string { return render.Text(e.Fix, render.Context{}) }
