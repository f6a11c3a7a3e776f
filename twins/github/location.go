package github

import (
	"reflect"
	"strings"
	"sync"

	"github.com/pomehq/pome/twins"
)

var locationOnce sync.Once

// withLocation gives every REST create GitHub answers 201 a Location
// header naming the new resource's API URL, as GitHub does
// ("Location: https://api.github.com/repos/octocat/Hello-World/issues/1347"):
// the `url` field of the body sent. A binding's own headers are kept. It
// changes the actions in place, so it runs once (Actions).
func withLocation(actions []twins.Action) []twins.Action {
	for _, a := range actions {
		sp := a.Spec()
		for i := range sp.Bindings {
			b := &sp.Bindings[i]
			if b.SuccessStatus() != 201 || b.StatusOf != nil {
				continue
			}
			own, shape := b.Headers, b.Shape
			b.Headers = func(in, out any) [][2]string {
				var h [][2]string
				if own != nil {
					h = own(in, out)
				}
				body := out
				if shape != nil {
					body = shape(in, out)
				}
				if u := urlField(body); u != "" {
					h = append(h, [2]string{"Location", u})
				}
				return h
			}
		}
	}
	return actions
}

// urlField is the string field a body sends as "url", or "".
func urlField(body any) string {
	v := reflect.ValueOf(body)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "url" && f.Type.Kind() == reflect.String {
			return v.Field(i).String()
		}
	}
	return ""
}
