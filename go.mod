module github.com/modelgateway/gw

go 1.26.0
