package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/stripe"
)

// TestWriteAnswersDoNotRaceLaterWrites: a write's output may point into
// the world (Stripe answers with the customer it just updated), so it must
// be encoded before the next write to the same object runs. Concurrent
// updates of one customer then each answer a consistent object, and the
// race detector sees no access to it outside the twin's lock.
func TestWriteAnswersDoNotRaceLaterWrites(t *testing.T) {
	env := resttest.Start(t, stripe.New(), "")
	post := func(path string, form url.Values) (int, []byte) {
		return env.Do(t, http.MethodPost, path, "application/x-www-form-urlencoded", []byte(form.Encode()))
	}
	st, body := post("/v1/customers", url.Values{"name": {"Race"}})
	if st != http.StatusOK {
		t.Fatalf("create customer: %d %s", st, body)
	}
	var cus struct {
		ID string `json:"id"`
	}
	json.Unmarshal(body, &cus)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				name := fmt.Sprintf("writer %d update %d", w, i)
				st, body := post("/v1/customers/"+cus.ID, url.Values{
					"name": {name}, "description": {name}, "metadata[k" + fmt.Sprint(w) + "]": {name},
				})
				if st != http.StatusOK {
					t.Errorf("update: %d %s", st, body)
					return
				}
				var got struct {
					Name        string `json:"name"`
					Description string `json:"description"`
				}
				json.Unmarshal(body, &got)
				// The answer is the object as this update left it: its own
				// name and description, never another writer's half.
				if got.Name != name || got.Description != name || !strings.HasPrefix(got.Name, "writer") {
					t.Errorf("update %q answered name %q, description %q", name, got.Name, got.Description)
					return
				}
			}
		}(w)
	}
	wg.Wait()
}
