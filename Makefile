# HyAtlas Desktop. `make run` runs the app; `make test` passes the tests.
# Both install what they need first (build/scripts/deps.sh, idempotent).

SHELL   := /bin/bash
GO      ?= go
BIN     := build/bin/hyatlas
TAGS    := desktop,production,webkit2_41
VERSION := 0.1.0+$(shell git rev-parse --short HEAD 2>/dev/null || echo dev)
LDFLAGS := -s -w -X hyatlas/backend/engine.Version=$(VERSION)
GOFILES  = $(shell find . -name '*.go' -not -path './frontend/node_modules/*' -not -path './build/cache/*')
# The ONNX Runtime library build/scripts/assets.sh keeps for this platform;
# tests load it through HYATLAS_ORT_LIB, builds put it next to the binary.
ORT_LIB  = $(firstword $(wildcard $(CURDIR)/build/cache/ort/lib/*onnxruntime*))
test e2e keyring: export HYATLAS_ORT_LIB = $(ORT_LIB)

.PHONY: bench-ui run test build build-embedded binary deps frontend check-go e2e keyring package package-test bench clean

## run: build and start HyAtlas (the window, or headless without a display)
run: build
	./$(BIN)

## build: the desktop binary with the frontend inside
build: deps frontend binary

binary:
	$(GO) build -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) .
	cp -p $(ORT_LIB) $(dir $(BIN))

## package: the Debian package (build/bin/hyatlas_<version>_<arch>.deb)
package: build
	@build/scripts/package.sh $(subst +,~,$(VERSION))

## package-test: install the package with apt, start it, remove it
package-test: binary
	@build/scripts/package-test.sh $$(build/scripts/package.sh $(subst +,~,$(VERSION)))

## build-embedded: one self-contained binary that also carries ONNX Runtime
build-embedded: deps frontend
	$(GO) build -tags $(TAGS),embedort -ldflags '$(LDFLAGS)' -o $(BIN)-embedded .

deps:
	@build/scripts/deps.sh
	@build/scripts/assets.sh

frontend:
	cd frontend && npm run --silent build

## test: every check CI runs
test: deps frontend
	cd frontend && npm run --silent check && npm test --silent
	$(MAKE) --no-print-directory check-go
	$(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory keyring
	$(MAKE) --no-print-directory binary
	$(MAKE) --no-print-directory e2e
	$(MAKE) --no-print-directory package-test

## keyring: the key path against a real gnome-keyring on a private session bus
keyring:
	@dir=$$(mktemp -d); XDG_DATA_HOME=$$dir dbus-run-session -- sh -c \
		'eval "$$(printf %s test-password | gnome-keyring-daemon --unlock --components=secrets)"; \
		$(GO) test -tags keyring -count=1 ./backend/secrets/ ./backend/engine/ -run "Keyring|Real"' 2>&1 \
		| grep -v -e '^dbus-daemon' -e 'Failed to set fd limit'; s=$${PIPESTATUS[0]}; rm -rf $$dir; exit $$s

check-go:
	@unformatted=$$(gofmt -l $(GOFILES)); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags e2e ./app/
	$(GO) vet -tags keyring ./backend/secrets/ ./backend/engine/

## e2e: the built binary's window under Xvfb and its dashboard in Chromium
## (inside the session, a throwaway gnome-keyring: Settings stores a key in it)
e2e:
	@dir=$$(mktemp -d); HYATLAS_BIN=$(CURDIR)/$(BIN) XDG_DATA_HOME=$$dir xvfb-run -a -s '-screen 0 1280x800x24' \
		dbus-run-session -- sh -c 'eval "$$(printf %s test-password | gnome-keyring-daemon --unlock --components=secrets)"; \
		export GNOME_KEYRING_CONTROL; $(GO) test -tags e2e -count=1 -v ./app/' 2>&1 \
		| grep -v -e '^dbus-daemon' -e 'Failed to set fd limit'; s=$${PIPESTATUS[0]}; rm -rf $$dir; exit $$s

## bench: the performance targets (writes a table; see README)
bench: build
	./$(BIN) bench

## bench-ui: the Atlas at 100,000 memories and the Mind Palace at 5,000 entities in Chromium, and start to window (prints the numbers)
bench-ui: build
	HYATLAS_BIN=$(CURDIR)/$(BIN) HYATLAS_ORT_LIB=$(ORT_LIB) xvfb-run -a -s '-screen 0 1280x800x24' \
		$(GO) test -tags benchui -count=1 -v -timeout 30m ./app/ > build/bench-ui.log 2>&1; \
		rc=$$?; grep -E "Atlas at|Mind Palace at|Start to window|FAIL|ok" build/bench-ui.log; \
		if [ $$rc -ne 0 ]; then echo "bench-ui failed; the whole output is in build/bench-ui.log"; fi; exit $$rc

clean:
	rm -rf build/bin frontend/dist/app
