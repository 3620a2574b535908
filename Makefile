# skillgate: every command a person or CI needs. All set-up output goes to
# stderr, so `make run` keeps stdout for the MCP protocol alone.

DENO_VERSION := 2.9.6
TOOLS_DENO := .tools/node_modules/deno/deno
# Use deno from PATH when it is 2.9.x; otherwise install the pinned version.
SYSTEM_DENO := $(shell command -v deno 2>/dev/null)
ifneq ($(findstring deno 2.9.,$(shell deno --version 2>/dev/null)),)
DENO := $(SYSTEM_DENO)
else
DENO := $(TOOLS_DENO)
endif

# The trusted part's static flags: one source of truth, src/sandbox/trusted_flags.json.
FLAGS_FILE := src/sandbox/trusted_flags.json
TRUSTED_FLAGS = $(shell sed -n 's/^ *"\(--[^"]*\)",\{0,1\}$$/\1/p' $(FLAGS_FILE))
ARGS ?= serve examples/skills
DEPS_STAMP := node_modules/.skillgate-deps
# Says on stderr which skills corpora the tests run on (tests/support/corpora.ts).
SAY_CORPORA = $(DENO) run --frozen --cached-only --allow-read --allow-env=SKILLGATE_CORPUS \
	tests/support/say_corpora.ts

.PHONY: run test fmt lint check unit bench compile print-flags deno deps clean
.PHONY: compile-plan
.DEFAULT_GOAL := run

## run: serve examples/skills over stdio (or ARGS='serve ~/skills')
run: deps
	@$(DENO) run $(TRUSTED_FLAGS) main.ts $(ARGS)

## test: format check, lint, type check, all tests
test: deps
	@$(DENO) fmt --check >&2
	@$(DENO) lint >&2
	@$(DENO) check --frozen main.ts src tests bench >&2
	@$(SAY_CORPORA)
	@$(DENO) test --frozen --cached-only --allow-all --unstable-worker-options tests/

unit: deps
	@$(SAY_CORPORA)
	@$(DENO) test --frozen --cached-only --allow-all --unstable-worker-options $(TESTS)

fmt: deps
	@$(DENO) fmt >&2

## bench: performance table (see bench/README.md)
bench: deps
	@$(DENO) run --frozen --cached-only --allow-all bench/main.ts

print-flags:
	@echo $(TRUSTED_FLAGS)

## compile: build dist/skillgate with deno compile and the trusted flags
## (offline: make compile DENORT_BIN=/path/to/denort; the full deno CLI is refused)
compile: deps
	@sh .ci/compile.sh "$(DENO)" dist/skillgate $(TRUSTED_FLAGS)

## compile-plan: print the deno compile argv, one element per line, without building
compile-plan:
	@sh .ci/compile.sh --plan "$(DENO)" dist/skillgate $(TRUSTED_FLAGS)

deno: $(DENO)

$(TOOLS_DENO):
	@echo "skillgate: installing deno $(DENO_VERSION) into .tools/ from npm" >&2
	@npm install --no-save --no-audit --no-fund --loglevel=error --prefix .tools deno@$(DENO_VERSION) >&2
	@test -x $(TOOLS_DENO) || { echo "skillgate: deno did not install into .tools/" >&2; exit 1; }

deps: $(DEPS_STAMP)

$(DEPS_STAMP): deno.json deno.lock | $(DENO)
	@$(DENO) install --frozen >&2
	@touch $(DEPS_STAMP)

clean:
	rm -rf node_modules dist
