package session

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/pomehq/pome/twins"
)

// defaultDocs spares a burst of creates most of their cost: building a
// twin's default world and encoding it. A twin's default world depends on
// the sandbox clock, and for some twins (GitHub's, Stripe's, Slack's) on nothing but
// its second: every sandbox created in that second gets the same document,
// which is made once and kept until the next second. Which twins those are
// is found by building the default world a few times on the same second
// with different sandboxes (probe), once per twin; a twin whose world
// depends on anything else (a finer clock, its sandbox, chance) is built
// for every sandbox as before.
//
// A create from the cache has no decoded world to hand the store: both
// stores need only the document (the memory store decodes the world on the
// first call that needs it), so it is used only for twins that can decode.
type defaultDocs struct {
	mu    sync.Mutex
	twins map[string]*defaultDoc
}

type defaultDoc struct {
	// stable: the probe found the default world to depend on the clock's
	// second alone.
	stable bool
	sec    int64
	doc    []byte
	// hashes are the world's SeedCredentials.
	hashes []string
	valid  bool
}

// lookup returns the default document of tw for the clock second sec, if
// it is known; cacheable reports whether the twin's default world can be
// kept (then put keeps the one built on a miss).
func (d *defaultDocs) lookup(ctx context.Context, tw *twins.Twin, sec int64) (doc []byte, hashes []string, hit, cacheable bool) {
	if tw.DecodeWorld == nil {
		return nil, nil, false, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.twins[tw.Name]
	if e == nil {
		// Probed under the lock: the few creates that wait meanwhile
		// would otherwise all probe.
		e = &defaultDoc{stable: probeDefaultWorld(ctx, tw)}
		if d.twins == nil {
			d.twins = map[string]*defaultDoc{}
		}
		d.twins[tw.Name] = e
	}
	if !e.stable {
		return nil, nil, false, false
	}
	if e.valid && e.sec == sec {
		return e.doc, slices.Clone(e.hashes), true, true
	}
	return nil, nil, false, true
}

// put keeps doc as tw's default document for the second sec, in place of
// the one kept before (a sandbox clock seeded far ahead must not keep the
// wall clock's seconds out).
func (d *defaultDocs) put(tw *twins.Twin, sec int64, doc []byte, hashes []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e := d.twins[tw.Name]; e != nil && e.stable {
		e.sec, e.doc, e.hashes, e.valid = sec, doc, slices.Clone(hashes), true
	}
}

// probeDefaultWorld builds tw's default world for three sandboxes at
// three moments of one second, and reports whether the three are alike,
// document and seeded credentials.
func probeDefaultWorld(ctx context.Context, tw *twins.Twin) bool {
	sec := time.Now().UTC().Truncate(time.Second)
	var first []byte
	var firstHashes []string
	for i, off := range []time.Duration{0, time.Millisecond, 999 * time.Millisecond} {
		at := sec.Add(off)
		id := "ses_probe" + strconv.Itoa(1e10 + i)[:11]
		env := &twins.Env{SandboxID: id, Twin: tw.Name, APIURL: "http://probe" + strconv.Itoa(i) + ".invalid/" + tw.Name + "/s/" + id,
			Now: func() time.Time { return at }}
		world, err := tw.NewWorld(twins.WithEnv(ctx, env), nil)
		if err != nil {
			return false
		}
		doc, err := json.Marshal(world)
		if err != nil {
			return false
		}
		var hashes []string
		if tw.SeedCredentials != nil {
			hashes = tw.SeedCredentials(world)
		}
		if i == 0 {
			first, firstHashes = doc, hashes
			continue
		}
		if !bytes.Equal(doc, first) || !slices.Equal(hashes, firstHashes) {
			return false
		}
	}
	return true
}
