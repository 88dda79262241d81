// Package engine is the composition root as a library: Open wires the
// store, the vector index, the embedder, the memory service and the API
// from a config.Config, and owns their lifecycle. It holds no rules of its
// own; the rules live in backend/memory.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/autostart"
	"hyatlas/backend/config"
	"hyatlas/backend/events"
	"hyatlas/backend/memory"
	"hyatlas/backend/models"
	"hyatlas/backend/secrets"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
	"hyatlas/backend/workspace"
)

// Version is the app version, set at build time with
// -ldflags "-X hyatlas/backend/engine.Version=...".
var Version = "0.1.0-dev"

// Options are what the caller adds to the config.
type Options struct {
	Logger *slog.Logger
	Assets fs.FS // the built frontend; nil serves a notice page
	// ModelCatalog replaces the downloadable models' catalog (tests serve
	// small models from a local server); nil means the built-in one.
	ModelCatalog []models.Model
	// Keyring holds the extraction key; nil means the OS keyring. Tests
	// pass their own so a developer's real key is never touched.
	Keyring secrets.Keyring
	// LLMHTTPClient carries the extraction calls; nil means a default
	// client. Tests route a remote-looking endpoint to a local fake.
	LLMHTTPClient *http.Client
	// Now is the memory engine's clock; nil means time.Now (tests compress
	// time with their own).
	Now func() time.Time
}

// Engine is a running memory engine.
type Engine struct {
	restartState
	Config config.Config
	Memory *memory.Service
	API    *api.Server
	// Token is the API token at start; a new one (hyatlas token --new,
	// POST /api/v1/token) replaces it in the token file and the API.
	Token   string
	Started time.Time
	// LoadTime is how long opening took, index rebuild included.
	LoadTime time.Duration

	models    *modelController
	x         *extraction
	snap      *snapshots
	workspace *workspace.Dir
	log       *slog.Logger
	store     *store.Store
	bus       *events.Bus
	embedders embedderSet
	http      *http.Server
	listener  net.Listener

	ctx         context.Context // ends at Close
	cancel      context.CancelFunc
	bg          sync.WaitGroup
	window      sync.WaitGroup // requests of the desktop window in progress
	reembedKick chan struct{}

	switchMu   sync.Mutex // one embedder switch at a time
	settingsMu sync.Mutex // one settings save (read, merge, write) at a time
	mu         sync.Mutex
	closer     io.Closer // the embedder in use
	stopped    bool      // Close has begun: no new background work
	closing    bool      // Close has begun: no new window request
	closeOnce  sync.Once
	closeErr   error
}

// dashboardSignIns are the browser dashboard's sessions: one set for the
// process, so a restart from Settings (a new engine in the same process)
// leaves an open dashboard signed in. A restart that replaces the process
// hands them over through SessionsEnv.
var dashboardSignIns = &api.SignIns{}

// SessionsEnv carries the dashboard sessions (their hashes, see
// api.SignIns.Handover) to the process a restart starts; Open takes them
// and removes the variable, so nothing it starts inherits it.
const SessionsEnv = "HYATLAS_DASHBOARD_SESSIONS"

// SessionsForRestart is the value of SessionsEnv for the process a
// restart starts in place of this one.
func SessionsForRestart() string { return dashboardSignIns.Handover() }

// receiveSessions takes the sessions a restart handed over, once.
func receiveSessions() {
	if v, ok := os.LookupEnv(SessionsEnv); ok {
		dashboardSignIns.Receive(v)
		_ = os.Unsetenv(SessionsEnv)
	}
}

// Open opens the data directory and rebuilds the vector index from the
// saved vectors (no re-embedding). It does not listen; call Listen.
func Open(ctx context.Context, cfg config.Config, opts Options) (*Engine, error) {
	started := time.Now()
	receiveSessions()
	if cfg.LLM.Workers < 1 {
		cfg.LLM.Workers = 1
	}
	if cfg.LLM.Timeout <= 0 {
		cfg.LLM.Timeout = 300 * time.Second
	}
	if cfg.Consolidate.Every <= 0 { // config.Load refuses this in ultra; a hand-built config gets the default
		cfg.Consolidate.Every = 6 * time.Hour
	}
	if cfg.Consolidate.Catchup <= 0 {
		cfg.Consolidate.Catchup = cfg.Consolidate.Every
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	if cfg.Snapshot.Dir == "" {
		cfg.Snapshot.Dir = filepath.Clean(cfg.Paths.Data) + "-snapshots"
	}
	if cfg.Snapshot.Keep < 1 {
		cfg.Snapshot.Keep = 7
	}
	dirs := dataDirs{data: cfg.Paths.Data, workspace: filepath.Join(cfg.Paths.Data, "workspace"), snapshots: cfg.Snapshot.Dir}
	st, err := store.OpenWith(ctx, cfg.Paths.Data, store.Options{BeforeMigrate: beforeUpgrade(dirs, log)})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if st.MigratedFrom != st.MigratedTo {
		log.Info("store schema migrated", "from", st.MigratedFrom, "to", st.MigratedTo)
	}
	if !st.ReadOnly() {
		// Requests that left before HyAtlas last stopped, with no answer.
		if n, err := st.InterruptEgress(context.Background()); err != nil {
			log.Warn("could not mark interrupted requests in the egress ledger", "err", err)
		} else if n > 0 {
			log.Info("requests were under way when HyAtlas last stopped; the egress ledger marks them interrupted", "requests", n)
		}
	}
	e := &Engine{Config: cfg, Started: started, log: log, store: st, bus: events.New(),
		reembedKick: make(chan struct{}, 1)}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.snap = &snapshots{keeper: newKeeper(dirs, st.BackupTo)}
	e.models = newModelController(e, filepath.Join(cfg.Paths.Data, "models"), cfg.ModelsBase, opts.ModelCatalog)
	e.embedders = embedderSet{cfg: cfg, models: e.models.mgr, log: log, egress: e.addEgress}
	fail := func(err error) (*Engine, error) {
		e.cancel()
		if e.closer != nil {
			_ = e.closer.Close()
		}
		_ = st.Close()
		return nil, err
	}
	e.workspace = workspace.New(dirs.workspace)
	switch err := e.recoverRestore(ctx); {
	case errors.Is(err, errReplacedNotKept):
		// The restored data is in; only its undo snapshot waits, and no
		// restore runs until it is kept (RestoreSnapshot says so).
		log.Warn("the state a restore replaced is not kept as a snapshot yet (is the snapshot folder full or read-only?); it waits beside the data and is tried again at the next start or restore", "err", err)
	case err != nil:
		return fail(fmt.Errorf("finish an interrupted restore: %w", err))
	}
	if err := e.snap.keeper.CleanPartial(); err != nil {
		log.Warn("could not remove a snapshot a crash left unfinished", "err", err)
	}
	emb, closer, err := e.embedders.openEmbedder(ctx)
	if err != nil {
		return fail(fmt.Errorf("embedder: %w", err))
	}
	e.closer = closer
	index, err := buildIndex(ctx, st, emb, log)
	if err != nil {
		return fail(err)
	}
	kr := opts.Keyring
	if kr == nil {
		kr = secrets.OSKeyring()
	}
	e.x = e.newExtraction(ctx, kr, opts.LLMHTTPClient)
	deps := memory.Deps{Store: st, Index: index, Embedder: emb, Events: e.bus, Now: opts.Now,
		Extractor: e.x.memoryExtractor(), ExtractStore: st, LLMState: e.x.state, Paused: e.x.paused.Load, Graph: st, GraphStore: st,
		Consolidator: e.consolidator(), ConsolidationStore: st, Workspace: e.workspace,
		KickReembed: e.kickReembed}
	if cfg.Mode.UsesLLM() {
		e.x.queue = newExtractQueue()
		deps.Enqueue = func(id string) { e.x.queue.push(id) }
	}
	e.Memory, err = memory.NewService(memory.Config{
		Mode: cfg.Mode, Aliases: cfg.Aliases, MinScore: cfg.MinScore, Admin: cfg.Admin,
		Extraction: memory.ExtractionConfig{Sync: cfg.ExtractSync(), DedupeScore: cfg.LLM.DedupeScore,
			RelatedMin: relatedMin, Reconcile: cfg.LLM.Reconcile, EpisodeGap: cfg.LLM.EpisodeGap,
			NowEvery: cfg.LLM.NowEvery, NowOff: cfg.LLM.NowOff, Location: time.Local},
		Search: memory.SearchConfig{Recency: cfg.Search.Recency, UsageLearning: cfg.Search.UsageLearning,
			MMRLambda: cfg.Search.MMRLambda, IntentionTTL: cfg.Search.IntentionTTL},
		Consolidate: memory.ConsolidateConfig{Batch: cfg.Consolidate.Batch, Parallel: cfg.Consolidate.Parallel,
			Budget: consolidateBudget, Recluster: cfg.Consolidate.Recluster, Graph: cfg.Consolidate.Graph,
			CrossEvery: cfg.Consolidate.CrossEvery, RawRetention: cfg.Consolidate.RawRetention},
		Strength: cfg.Strength, CompactThreshold: cfg.CompactThreshold,
	}, deps)
	if err != nil {
		return fail(err)
	}
	if !st.ReadOnly() { // a crash cut an import off between its files and its memories
		if n, err := e.Memory.FinishImport(ctx); err != nil {
			return fail(err)
		} else if n > 0 {
			log.Warn("an import was interrupted before its memories were stored; the workspace files it had written are taken back", "files", n)
		}
	}
	if e.Token, err = api.LoadOrCreateToken(cfg.Paths.Config); err != nil {
		return fail(fmt.Errorf("API token: %w", err))
	}
	e.API = api.New(api.Config{
		BindHost: cfg.Host, AllowedHosts: cfg.AllowedHosts, Auth: cfg.Auth, Token: e.Token, TokenDir: cfg.Paths.Config,
		Version: Version, DataDir: cfg.Paths.Data, LLMBase: cfg.LLM.Base, LLMModel: cfg.LLM.Model,
		ExtractSync: cfg.ExtractSync(), Started: started, Logger: log, Assets: opts.Assets,
		Subscribe: e.bus.Subscribe, Models: e.models, Keys: keysAPI{e.x}, Digest: e.Digest,
		Snapshots: snapshotsAPI{e}, Autostart: autostartEntry(), Hermes: hermesAPI{NewHermesInstaller(cfg)},
		Settings: settingsAPI{e}, SignIns: dashboardSignIns, Address: e.BaseURL,
	}, e.Memory, e.Flush)
	e.background(e.reembedLoop)
	e.kickReembed()
	e.background(e.decayLoop)
	if e.x.queue != nil {
		for range cfg.LLM.Workers {
			e.background(e.extractWorker)
		}
		e.background(e.catchUpLoop)
		e.background(e.housekeepLoop)
	}
	if e.Memory.HasSlowPath() {
		e.background(e.consolidateLoop)
	}
	if cfg.Snapshot.Every > 0 {
		e.background(e.snapshotLoop)
	}
	e.LoadTime = time.Since(started)
	log.Info("engine open", "data", cfg.Paths.Data, "memories", index.Len(), "embedder", emb.Info().ID,
		"mode", cfg.Mode, "took", e.LoadTime.Round(time.Millisecond))
	return e, nil
}

// autostartEntry is launch at login for the running binary.
func autostartEntry() autostartAPI {
	exe, err := os.Executable()
	if err != nil {
		exe = "hyatlas"
	}
	return autostartAPI{autostart.New(os.Getenv, exe)}
}

// autostartAPI adapts the autostart entry to the API.
type autostartAPI struct{ autostart.Entry }

func (autostartAPI) Supported() bool { return autostart.Supported() }

// consolidateBudget bounds one consolidation pass.
const consolidateBudget = 10 * time.Minute

// relatedMin is the similarity a stored fact needs to be shown to the
// model as related, and to be compared by reconcile.
const relatedMin = 0.70

// indexableParts reports whether every sentence vector of a row can be
// indexed (the index refuses the whole batch otherwise): a row with one
// that cannot is re-embedded like any row without a vector.
func indexableParts(parts [][]float32, dims int) bool {
	for _, p := range parts {
		if len(p) != dims || !vector.Indexable(p) {
			return false
		}
	}
	return true
}

// loadIndex fills the index from the store's vectors made by embedder.
// Reading SQLite and filling the index each take about half the time, so
// they run in two goroutines passing batches through a small ring of
// reused buffers (the store reuses each row's buffer; batches copy it).
// A row whose saved vector cannot be indexed (wrong length, zero, NaN) is
// not fatal: its vector is dropped, so the row stays in the store, counts
// as waiting for an embedding, and the index and store agree.
func loadIndex(ctx context.Context, st *store.Store, index *vector.Index, embedder string, dims int) (skipped []string, err error) {
	const batchRows = 256
	type batch struct {
		entries []memory.IndexEntry
		values  []float32
	}
	free, full := make(chan *batch, 4), make(chan *batch, 4)
	for range cap(free) {
		free <- &batch{values: make([]float32, 0, batchRows*dims)}
	}
	done := make(chan error, 1)
	go func() {
		var err error
		for b := range full {
			if err == nil {
				err = index.Upsert(b.entries...)
			}
			b.entries, b.values = b.entries[:0], b.values[:0]
			free <- b
		}
		done <- err
	}()
	var cur *batch
	scanErr := st.ScanVectors(ctx, embedder, func(e memory.IndexEntry) error {
		if len(e.Values) != dims || !vector.Indexable(e.Values) || !indexableParts(e.Parts, dims) {
			skipped = append(skipped, e.ID)
			return nil
		}
		if cur == nil {
			cur = <-free
		}
		cur.values = append(cur.values, e.Values...) // never grows: flushed at batchRows
		e.Values = cur.values[len(cur.values)-dims:]
		cur.entries = append(cur.entries, e)
		if len(cur.entries) == batchRows {
			full <- cur
			cur = nil
		}
		return nil
	})
	if cur != nil {
		full <- cur
	}
	close(full)
	if err := errors.Join(scanErr, <-done, st.DropVectors(ctx, skipped)); err != nil {
		return skipped, fmt.Errorf("rebuild vector index: %w", err)
	}
	return skipped, nil
}

// Listen binds the configured address and serves the API until Close. It
// returns the bound address (useful with port 0).
func (e *Engine) Listen() (string, error) {
	ln, err := inheritedListener(e.Config.Port)
	if err != nil {
		e.log.Warn("listening afresh", "err", err)
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", e.Config.Addr()); err != nil {
			return "", fmt.Errorf("listen on %s: %w (is HyAtlas already running?)", e.Config.Addr(), err)
		}
	}
	e.listener = ln
	if err := e.writeDiscovery(ln); err != nil {
		e.log.Warn("the discovery file for agents was not written; the Hermes plugin cannot find this instance", "err", err)
	}
	// Requests live inside the engine's context: a blocking extraction
	// still running when Close gives up waiting is cancelled (its write
	// stays queued) instead of outliving the store.
	// IdleTimeout closes keep-alive connections left idle: without it, any
	// local process could hold connections open until the server runs out
	// of file descriptors (an event stream is a running response, not idle).
	e.http = &http.Server{Handler: e.API.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second,
		ErrorLog:    slog.NewLogLogger(e.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return e.ctx }}
	e.http.RegisterOnShutdown(e.API.Stop) // ends event streams, which Shutdown would wait for
	go func() {
		if err := e.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			e.log.Error("API server stopped", "err", err)
		}
	}()
	return ln.Addr().String(), nil
}

// WindowHandler serves the desktop window's requests (the API in process,
// through the Wails asset server) as the listener serves the network's:
// each lives inside the engine's context, and Close waits for those in
// progress as it does for the listener's (up to the same 10 seconds),
// then cancels what is left, so none outlives the store.
func (e *Engine) WindowHandler() http.Handler {
	h := e.API.InProcessHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		closing := e.closing
		if !closing {
			e.window.Add(1)
		}
		e.mu.Unlock()
		if closing {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"HyAtlas is stopping","code":"unavailable"}`))
			return
		}
		defer e.window.Done()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(e.ctx, cancel)
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// BaseURL is the http:// address this machine reaches the listener at (""
// before Listen): a wildcard bind's is on 127.0.0.1.
func (e *Engine) BaseURL() string {
	if e.listener == nil {
		return ""
	}
	// A wildcard bind (0.0.0.0, ::) is no address to browse to, and its
	// Host the guard refuses: this machine reaches it on loopback.
	if a, ok := e.listener.Addr().(*net.TCPAddr); ok {
		return "http://" + loopbackAddr(a.IP.String(), a.Port)
	}
	return "http://" + e.listener.Addr().String()
}

// Flush writes state kept in memory; acknowledged writes are already
// durable.
func (e *Engine) Flush(ctx context.Context) error { return e.Memory.Flush(ctx) }

// Close stops the listener and the window's requests (letting those in
// progress finish, up to 10 seconds in all), stops background work,
// flushes, and closes the store. It is safe to call twice.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		var errs []error
		e.mu.Lock()
		e.closing = true // no new window request
		e.mu.Unlock()
		deadline := time.Now().Add(10 * time.Second)
		if handsOverListener && e.restart.Load() && e.listener != nil {
			// The port stays taken for the process the restart starts.
			if err := holdListener(e.listener); err != nil {
				e.log.Warn("the port is free during the restart", "err", err)
			}
		}
		if e.http != nil {
			ctx, cancel := context.WithDeadline(context.Background(), deadline)
			errs = append(errs, e.http.Shutdown(ctx))
			cancel()
		}
		if e.API != nil {
			e.API.ForgetSignIns() // the codes end with this process, and their pages go
		}
		windowDone := make(chan struct{})
		go func() { e.window.Wait(); close(windowDone) }()
		select {
		case <-windowDone:
		case <-time.After(time.Until(deadline)):
		}
		e.mu.Lock()
		e.stopped = true
		e.mu.Unlock()
		e.cancel()
		select { // cancelled now: they end, or are left behind
		case <-windowDone:
		case <-time.After(5 * time.Second):
			e.log.Warn("a request of the window did not end when cancelled; closing anyway")
		}
		e.bg.Wait()
		errs = append(errs, e.Memory.Flush(context.Background()), e.store.Close())
		e.mu.Lock()
		if e.closer != nil {
			errs = append(errs, e.closer.Close())
		}
		e.mu.Unlock()
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}
