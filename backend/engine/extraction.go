package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/extract"
	"hyatlas/backend/llm"
	"hyatlas/backend/memory"
	"hyatlas/backend/secrets"
)

// keyRefresh is how often the key's presence is read again (a key file can
// appear or vanish at any time); a key handed, saved or deleted through
// the app is seen at once.
const keyRefresh = time.Minute

// extraction is the engine's side of extraction: the key, the LLM client
// behind the extractor, the worker queue and the schedules.
type extraction struct {
	cfg    config.LLMConfig
	keys   *secrets.KeySource
	keySet atomic.Bool
	// keyGen counts what changed the key (a hand-over, a save, a delete, a
	// check that found it appear or go), under keyMu: a call that read "no
	// key" just before a key arrived does not mark it missing after the
	// arrival was seen (that would hold every write until the next check).
	keyMu  sync.Mutex
	keyGen uint64
	// afterKeyRead, when set (tests), runs in a call between reading the
	// key and acting on it.
	afterKeyRead atomic.Pointer[func()]
	client       *llm.Client
	hc           *http.Client // carries LLM calls (nil: the default client)
	queue        *extractQueue
	kick         chan struct{} // asks the catch-up loop for a run now
	// paused holds background extraction (the tray's Pause): writes are
	// kept and queued as always, and extracted once it is resumed.
	paused atomic.Bool
	resume chan struct{}
	// keyArrived is called when a check finds a key where there was none.
	keyArrived func()
}

// newExtraction builds the key source and, when an endpoint is configured,
// the client. Lite mode builds neither client nor queue: it makes no call.
func (e *Engine) newExtraction(ctx context.Context, kr secrets.Keyring, hc *http.Client) *extraction {
	cfg := e.Config.LLM
	x := &extraction{cfg: cfg, hc: hc, kick: make(chan struct{}, 1), resume: make(chan struct{})}
	x.keys = secrets.NewKeySource(secrets.KeySourceConfig{Keyring: kr, File: cfg.KeyFile, Env: cfg.Key,
		Warn: func(msg string) { e.log.Warn(msg) }})
	x.keys.OnChange(func() {
		x.keyMu.Lock()
		x.keyGen++
		x.keyMu.Unlock()
		was := x.keySet.Load()
		x.refreshKey(context.Background(), 10*time.Second) // a key where there was none: keyArrived
		if was && x.keySet.Load() {
			e.keyChanged() // a key replaced by another: writes that failed with the old one go again
		}
	})
	if !e.Config.Mode.UsesLLM() || !cfg.Configured() {
		return x // no call to make: the keyring is not even read
	}
	// A locked keyring may wait for its unlock prompt: the start waits at
	// most 2 seconds, and the catch-up loop reads it again later.
	x.refreshKey(ctx, 2*time.Second)
	ccfg := llm.Config{
		Primary:     llm.Endpoint{Base: cfg.Base, Model: cfg.Model, Key: x.keyForCall},
		Timeout:     cfg.Timeout,
		UserAgent:   "HyAtlas/" + Version + " (+memory extraction)",
		Ledger:      e.ledger,
		LedgerStart: e.ledgerStart,
		HTTPClient:  hc,
	}
	if cfg.FallbackModel != "" || cfg.FallbackBase != "" {
		fb := &llm.Endpoint{Base: cfg.FallbackBase, Model: cfg.FallbackModel}
		if cfg.FallbackKey != "" {
			k := cfg.FallbackKey
			fb.Key = func(context.Context) (string, error) { return k, nil }
		}
		ccfg.Fallback = fb
	}
	x.client = llm.New(ccfg)
	x.keyArrived = e.keyChanged // only now: the first check above finds what start-up queues anyway
	return x
}

// keyGeneration is keyGen now: a call's outcome compares it with the one
// before the call to tell whether the key changed meanwhile.
func (x *extraction) keyGeneration() uint64 {
	x.keyMu.Lock()
	defer x.keyMu.Unlock()
	return x.keyGen
}

// key is the primary endpoint's key now, read through the key source.
func (x *extraction) key(ctx context.Context) (string, error) {
	k, _, err := x.keys.Key(ctx)
	return k, err
}

// errNoKey stops a call to an endpoint elsewhere when no key is set.
var errNoKey = errors.New("no key is set for an endpoint on another machine")

// keyForCall is the primary key for one call. An endpoint on another
// machine gets no call without a key: the write's text stays here (a key
// file removed since the last check), and status says awaiting_key at once
// rather than at the next check.
func (x *extraction) keyForCall(ctx context.Context) (string, error) {
	x.keyMu.Lock()
	gen := x.keyGen
	x.keyMu.Unlock()
	k, err := x.key(ctx)
	if hook := x.afterKeyRead.Load(); hook != nil {
		(*hook)()
	}
	if err == nil && k == "" && !isLocal(x.cfg.Base) {
		x.keyMu.Lock()
		if x.keyGen == gen { // no key came meanwhile
			x.keySet.Store(false)
		}
		x.keyMu.Unlock()
		return "", errNoKey
	}
	return k, err
}

// refreshKey reads whether a key is set (never the key itself), waiting
// at most limit for the keyring; without an endpoint it reads nothing. A key that arrived (none was set before)
// queues the writes waiting for it at once, whichever check saw it first.
func (x *extraction) refreshKey(ctx context.Context, limit time.Duration) {
	if !x.cfg.Configured() {
		return // no endpoint, no call to make: the keyring is not read
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	isSet, _, _, err := x.keys.Status(ctx)
	if err != nil {
		return
	}
	x.keyMu.Lock()
	was := x.keySet.Swap(isSet)
	if was != isSet {
		x.keyGen++
	}
	x.keyMu.Unlock()
	if !was && isSet && x.keyArrived != nil {
		x.keyArrived()
	}
}

// state is the endpoint's state for status and for the Service: an
// endpoint on this machine (Ollama, llama.cpp) needs no key.
func (x *extraction) state() memory.LLMState {
	switch {
	case !x.cfg.Configured() || x.client == nil:
		return memory.LLMUnconfigured
	case !x.keySet.Load() && !isLocal(x.cfg.Base):
		return memory.LLMAwaitingKey
	default:
		return memory.LLMOK
	}
}

// isLocal reports whether base points at this machine: localhost (in any
// case, with or without the root's dot), a loopback address, or the
// unspecified address (0.0.0.0, ::), which reaches this machine too and
// is what local servers' guides often print.
func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

func (x *extraction) kickCatchUp() {
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// keyChanged resumes extraction when a key arrives: writes made while no
// key was set were never tried, so each is queued at once (whatever its
// age within the catch-up window), and a catch-up run follows.
func (e *Engine) keyChanged() { e.queueUnfinished() }

// queueUnfinished queues every write waiting for extraction within the
// catch-up window and kicks a catch-up run, when the endpoint is usable:
// after a key arrives, and after a restore (the restored data has its own
// queue, which the one in memory knows nothing of).
func (e *Engine) queueUnfinished() {
	if e.x == nil || e.x.state() != memory.LLMOK || e.x.queue == nil || e.Memory == nil {
		return
	}
	e.background(func(ctx context.Context) {
		ids, err := e.Memory.Unfinished(ctx, e.Config.LLM.CatchupMaxAge)
		if err != nil {
			e.log.Error("could not list rows waiting for extraction", "err", err)
			return
		}
		e.x.queue.push(ids...)
		e.x.kickCatchUp()
	})
}

// ledger records one LLM request in the egress ledger. It never fails the
// call: a ledger write that fails is logged.
func (e *Engine) ledger(c llm.Call) {
	e.addEgress(egressOf(c))
}

// ledgerStart records a request as it leaves, before its answer, and
// returns what records its end in the same row; if the first write fails,
// the end is recorded as a row of its own, as ledger does.
func (e *Engine) ledgerStart(c llm.Call) func(llm.Call) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := e.store.StartEgress(ctx, egressOf(c))
	if err != nil {
		e.log.Error("could not record a request in the egress ledger before it left", "err", err)
		return e.ledger
	}
	return func(c llm.Call) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.store.FinishEgress(ctx, seq, egressOf(c)); err != nil {
			e.log.Error("could not record a request's end in the egress ledger", "err", err)
		}
	}
}

// egressOf is a call as the ledger stores it.
func egressOf(c llm.Call) memory.EgressCall {
	return memory.EgressCall{At: c.At.UTC(), Host: c.Host, Model: c.Model, Purpose: c.Purpose,
		BytesOut: c.BytesOut, BytesIn: c.BytesIn, Status: c.Status, Outcome: c.Outcome, Duration: c.Duration.Milliseconds()}
}

// addEgress records one request that left the machine (an LLM call, or an
// embedding request to HYATLAS_EMBED_BASE) in the egress ledger; a ledger
// write that fails is logged.
func (e *Engine) addEgress(c memory.EgressCall) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.store.AddEgress(ctx, c); err != nil {
		e.log.Error("could not record a request in the egress ledger", "err", err)
	}
}

// completer adapts the llm client to extract.Completer.
type completer struct{ c *llm.Client }

func (c completer) CompleteJSON(ctx context.Context, purpose, system, user string, schema map[string]any, out any) error {
	return c.c.CompleteJSON(ctx, llm.Request{Purpose: purpose, System: system, User: user, Schema: schema,
		SchemaName: purpose}, out)
}

func (c completer) Complete(ctx context.Context, purpose, system, user string) (string, error) {
	return c.c.Complete(ctx, llm.Request{Purpose: purpose, System: system, User: user})
}

// extractor is extract.Extractor with "nothing to summarise" as an empty
// summary (the Service writes no row for it).
type extractor struct{ *extract.Extractor }

func (x extractor) Summarize(ctx context.Context, req memory.SummaryRequest) (string, error) {
	s, err := x.Extractor.Summarize(ctx, req)
	if errors.Is(err, extract.ErrNothingToSummarize) {
		return "", nil
	}
	return s, err
}

// memoryExtractor is what the Service gets: nil without a client.
func (x *extraction) memoryExtractor() memory.Extractor {
	if x.client == nil {
		return nil
	}
	return extractor{extract.New(completer{x.client})}
}

// keysAPI adapts the key source to the API.
type keysAPI struct{ x *extraction }

var _ api.Keys = keysAPI{}

func (k keysAPI) Hand(key string) error { return k.x.keys.Hand(key) }
func (k keysAPI) Save(key string) error { return k.x.keys.Save(key) }
func (k keysAPI) Delete() error         { return k.x.keys.Delete() }

func (k keysAPI) Status(ctx context.Context) (api.KeyStatus, error) {
	isSet, origin, keyringOK, err := k.x.keys.Status(ctx)
	if err != nil {
		return api.KeyStatus{}, fmt.Errorf("key status: %w", err)
	}
	return api.KeyStatus{IsSet: isSet, Origin: string(origin), KeyringAvailable: keyringOK}, nil
}
