# reconsim — run `make help` for the targets.
GO            ?= go
STATICCHECK   ?= $(shell command -v staticcheck 2>/dev/null || echo $(shell $(GO) env GOPATH)/bin/staticcheck)
STATICCHECK_VERSION ?= v0.8.2
# A count, not a duration: with a duration Go 1.26's fuzz coordinator can fail a target with
# "context deadline exceeded" and no failing input when -fuzztime expires (golang/go#75804,
# fixed in Go 1.27); a count has no deadline to race.
FUZZTIME      ?= 40000x
# Targets that run the whole load → validate → build path (FuzzValidate) or a whole simulation
# (FuzzRunBytes) cost 3-7 ms an execution rather than microseconds; 40000 of them would take
# minutes each, so they get their own count to keep CI within its budget.
FUZZTIME_SLOW ?= 2000x
FUZZ_SLOW     := FuzzRunBytes FuzzValidate
SCENARIO      ?= node-failure

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build the sim binary into bin/sim.
	$(GO) build -o bin/sim ./cmd/sim

.PHONY: run
run: ## Run the default scenario (SCENARIO=node-failure); writes out/<scenario>/.
	$(GO) run ./cmd/sim run $(SCENARIO)

.PHONY: test
test: ## Run all tests, the determinism lint, and each fuzzer for FUZZTIME.
	$(GO) test ./...
	$(MAKE) fuzz

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME (default 40000x executions; FUZZ_SLOW targets FUZZTIME_SLOW), from its checked-in corpus.
	@set -e; for f in $$(grep -l '^func Fuzz' $$(find . -name '*_test.go' -not -path './out/*')); do \
		dir=./$$(dirname $$f); \
		for fn in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
			n=$(FUZZTIME); case " $(FUZZ_SLOW) " in *" $$fn "*) n=$(FUZZTIME_SLOW);; esac; \
			echo "fuzz $$dir $$fn ($$n)"; \
			$(GO) test $$dir -run '^$$' -fuzz "^$${fn}\$$" -fuzztime $$n; \
		done; \
	done

.PHONY: e2e
e2e: ## Browser check: render node-failure's report.html and open it in headless Chromium (installs Debian's chromium if missing).
	bash report/e2e/run.sh

.PHONY: lint
lint: ## gofmt, go vet, staticcheck, the determinism lint and the import rules.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@test -x "$(STATICCHECK)" || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) ./...
	$(GO) test ./internal/detlint -run 'TestSimulationPathIsDeterministic|TestImportRules' -count=1

.PHONY: bench
bench: ## Run the benchmarks (kernel, API round trip, workqueue, scenarios, controller-runtime client vs native), then scale-5k, scale-10k and the growth series once each (minutes, GBs).
	$(GO) test ./... -run '^$$' -bench . -skip '^Benchmark(Scale|Growth)' -benchmem -benchtime 1s
	$(GO) test ./sim/cluster -run '^$$' -bench '^Benchmark(Scale5k|Scale10k|Growth)$$' -benchmem -benchtime 1x -timeout 2h

.PHONY: check-determinism
check-determinism: ## Run every built-in scenario but the slow ones (scenarios.SlowBuiltins) twice and compare trace hashes and outputs.
	$(GO) test ./sim/cluster -run 'TestBuiltinScenariosAreDeterministic' -count=1 -v -determinism-all

.PHONY: clean
clean: ## Remove build and run outputs.
	rm -rf bin out
