package api

import (
	"net/http"
	"sort"
	"strings"

	"hyatlas/backend/memory"
)

// register builds the whole API surface. Each path is registered once; a
// known path with another method answers 405 with Allow.
func (s *Server) register() {
	routes := []struct {
		method, path string
		h            handlerFunc
	}{
		{"GET", "/healthz", s.healthz},
		{"GET", ProofPath, s.proof}, // nonce: proof that this server holds the token, before a client sends it
		{"GET", "/readyz", s.readyz},
		{"GET", "/api/v1/status", s.status},
		{"GET", "/api/v1/metrics", s.metrics},
		{"GET", "/api/v1/stats/timeline", s.timeline}, // days: writes per layer and LLM calls per day
		{"POST", "/api/v1/add", s.add},                // text, user_id, agent_id, session_id, metadata
		{"POST", "/api/v1/search", s.search},          // query, limit, layer, user_id(s), agent_id(s), min_score, reader
		{"GET", "/api/v1/list", s.list},               // layer, user_id, agent_id, limit, offset, include_raw, include_superseded
		{"POST", "/api/v1/list", s.list},              // same, as a JSON body
		{"POST", "/api/v1/memories", s.remember},      // content, layer, category, strength, user_id, agent_id: added by hand
		{"GET", "/api/v1/memories/{id}", s.getMemory}, // with history
		{"PATCH", "/api/v1/memories/{id}", s.patchMemory},
		{"DELETE", "/api/v1/memories/{id}", s.deleteMemory},
		{"POST", "/api/v1/memories/{id}/retire", s.retireMemory}, // how, reason, by
		{"POST", "/api/v1/memories/{id}/restore", s.restoreMemory},
		{"POST", "/api/v1/memories/{id}/promote", s.nudge(1)}, // steps (1)
		{"POST", "/api/v1/memories/{id}/demote", s.nudge(-1)}, // steps (1)
		{"GET", "/api/v1/prompt", s.prompt},
		{"GET", "/api/v1/workspace/{agent}/{file}", s.readWorkspace},  // SOUL.md, MEMORY.md, USER.md; ETag
		{"PUT", "/api/v1/workspace/{agent}/{file}", s.writeWorkspace}, // content; If-Match
		{"GET", "/api/v1/export", s.export},                           // format (jsonl|markdown), vectors, user_id, agent_id
		{"POST", importPath, s.importMemories},                        // a JSON Lines export as the body
		{"GET", "/api/v1/snapshots", s.listSnapshots},
		{"POST", "/api/v1/snapshots", s.createSnapshot},
		{"DELETE", "/api/v1/snapshots/{id}", s.deleteSnapshot},
		{"POST", "/api/v1/snapshots/{id}/verify", s.verifySnapshot},
		{"POST", "/api/v1/snapshots/{id}/restore", s.restoreSnapshot}, // verified first; undo: restore the before-restore one
		{"GET", "/api/v1/tools", s.listTools},
		{"POST", "/api/v1/tools/{name}", s.callTool},                         // the tool's arguments; user_id, agent_id in the query
		{"POST", "/api/v1/feedback", s.feedback},                             // used: ids of recalled memories a reply used
		{"POST", "/api/v1/forget", s.forget},                                 // text, user_id, agent_id, contains, reason
		{"POST", "/api/v1/session/end", s.endSession},                        // user_id, agent_id, session_id: close the episode now
		{"GET", "/api/v1/hermes", s.hermesVerb(Hermes.Status)},               // profile: the plugin's state in Hermes
		{"POST", "/api/v1/hermes/install", s.hermesVerb(Hermes.Install)},     // profile: install and activate
		{"POST", "/api/v1/hermes/uninstall", s.hermesVerb(Hermes.Uninstall)}, // profile: remove, restore the provider
		{"POST", "/api/v1/delete_all", s.deleteAll},                          // id, layer, user_id, agent_id, all, confirm
		{"DELETE", "/api/v1/delete_all", s.deleteAll},                        // same
		{"POST", "/api/v1/flush", s.flushNow},
		{"POST", "/api/v1/reprocess", s.reprocess},                // ids, max; 202, queued
		{"POST", "/api/v1/admin/compact_raw", s.adminNotOffered},  // the public contract's maintenance: 403 without admin, else 501
		{"POST", "/api/v1/admin/dedupe_facts", s.adminNotOffered}, // same
		{"POST", "/api/v1/digest", s.digest},                      // a consolidation pass now; its report
		{"GET", "/api/v1/digest", s.digest},                       // passes since start, the last report
		{"POST", "/api/v1/llm/key", s.handKey},                    // key; this machine only, memory only
		{"GET", "/api/v1/settings/llm-key", s.keyStatus},          // is_set, origin; never the key
		{"PUT", "/api/v1/settings/llm-key", s.saveKey},            // key, memory_only
		{"DELETE", "/api/v1/settings/llm-key", s.deleteKey},
		{"GET", "/api/v1/settings", s.getSettings},            // saved, next, running, pinned
		{"PUT", "/api/v1/settings", s.putSettings},            // llm_base, llm_model, mode, sync_extract, schedules
		{"POST", "/api/v1/settings/test", s.testConnection},   // llm_base, llm_model: one short call
		{"POST", "/api/v1/restart", s.restart},                // stop and start again (new settings apply)
		{"GET", "/api/v1/settings/autostart", s.getAutostart}, // launch at login
		{"PUT", "/api/v1/settings/autostart", s.putAutostart}, // enabled
		{"GET", "/api/v1/egress", s.egress},                   // limit
		{"GET", "/api/v1/graph-as-of", s.graphAsOf},           // ts, axis, n, user_id, agent_id
		{"GET", "/api/v1/graph/changes", s.graphChanges},      // from, to, user_id, agent_id
		{"GET", "/api/v1/graph/history", s.graphHistory},      // user_id, agent_id: every node and record
		{"GET", "/api/v1/graph", s.graph},                     // node, user_id, agent_id
		{"POST", "/api/v1/graph", s.graph},                    // same, as a JSON body
		{"GET", "/api/v1/edges", s.edges},                     // n, k_semantic, user_id, agent_id: the Mind Palace feed
		{"GET", "/api/v1/learning/graph", s.learningGraph},    // same, in the star-map shape
		{"POST", "/api/v1/dashboard/link", s.dashboardLink},
		{"GET", "/api/v1/token", s.token},                              // the API token, for Settings' "Copy token" (callers are signed in already)
		{"POST", "/api/v1/token", s.newToken},                          // a new API token; the old one stops working
		{"POST", "/api/v1/window/show", s.showWindow},                  // a second launch brings the window to the front
		{"POST", "/api/v1/window/export", s.windowExport},              // the window only: asks where, saves an export there (format)
		{"POST", "/api/v1/window/import/choose", s.windowChooseImport}, // the window only: asks which export (nothing read)
		{"POST", "/api/v1/window/import", s.windowImport},              // the window only: path: imports that export
		{"GET", "/api/v1/events", s.eventStream},                       // types (comma-separated prefixes)
		{"GET", "/api/v1/models", s.listModels},
		{"POST", "/api/v1/models/{name}/install", s.installModel}, // 202; progress as model.progress events
		{"POST", "/api/v1/models/{name}/cancel", s.cancelModel},   // stops an install; the part downloaded stays for the next
		{"POST", "/api/v1/models/{name}/verify", s.verifyModel},
		{"DELETE", "/api/v1/models/{name}", s.removeModel},
		{"GET", "/dashboard/", s.dashboard},
		{"POST", "/dashboard/session", s.session}, // code: a one-time sign-in code -> session
	}
	byPath := map[string]map[string]handlerFunc{}
	var order []string
	for _, r := range routes {
		if byPath[r.path] == nil {
			byPath[r.path] = map[string]handlerFunc{}
			order = append(order, r.path)
		}
		byPath[r.path][r.method] = r.h
	}
	for _, path := range order {
		s.mux.Handle(path, s.methods(byPath[path]))
	}
	s.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.root(w, r); err != nil {
			writeError(w, r, s.log, err)
		}
	}))
}

// methods dispatches on the request method; HEAD is served as GET.
func (s *Server) methods(hs map[string]handlerFunc) http.Handler {
	var allow []string
	for m := range hs {
		allow = append(allow, m)
	}
	if hs["GET"] != nil {
		allow = append(allow, "HEAD")
	}
	sort.Strings(allow)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := r.Method
		if m == "HEAD" {
			m = "GET"
		}
		h, ok := hs[m]
		if !ok {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, r, s.log, memory.Errorf(codeMethodNotAllowed, "method %s not allowed on %s (allowed: %s)",
				r.Method, r.URL.Path, strings.Join(allow, ", ")))
			return
		}
		if err := h(w, r); err != nil {
			writeError(w, r, s.log, err)
		}
	})
}

// root sends people to the dashboard and answers unknown paths with 404,
// whatever the method.
func (s *Server) root(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Path == "/" && (r.Method == "GET" || r.Method == "HEAD") {
		http.Redirect(w, r, "/dashboard/", http.StatusFound)
		return nil
	}
	return memory.Errorf(memory.ENOTFOUND, "no such endpoint: %s %s", r.Method, r.URL.Path)
}
