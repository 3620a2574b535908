# skillgate: every command a person or CI needs. All set-up output goes to
# stderr, so `make run` keeps stdout for the MCP protocol alone.

# Deno and the locked dependencies are installed by the launcher ./skillgate (the one
# copy of that logic: deno from PATH when it is 2.9.x, else the pinned version from npm
# into .tools/, under a lock). SKILLGATE_SETUP_ONLY=1 makes it install what is missing
# and print the Deno path instead of running skillgate.
SETUP := SKILLGATE_SETUP_ONLY=1 ./skillgate
# Evaluated where used (after `deps` ran), so `make print-flags` or `make clean` install nothing.
DENO = $(shell $(SETUP))

# The trusted part's static flags: one source of truth, src/sandbox/trusted_flags.json.
FLAGS_FILE := src/sandbox/trusted_flags.json
TRUSTED_FLAGS = $(shell sed -n 's/^ *"\(--[^"]*\)",\{0,1\}$$/\1/p' $(FLAGS_FILE))
ARGS ?= serve examples/skills
# Says on stderr which skills corpora the tests run on (tests/support/corpora.ts).
SAY_CORPORA = "$(DENO)" run --frozen --cached-only --allow-read --allow-env=SKILLGATE_CORPUS \
	tests/support/say_corpora.ts

.PHONY: run test fmt lint check unit bench bench-attack compile print-flags deno deps clean
.PHONY: compile-plan schema smoke mcpb descriptors views
.DEFAULT_GOAL := run

## run: serve examples/skills over stdio (or ARGS='serve ~/skills'); the same as
## ./skillgate $(ARGS), which a client should start directly
run:
	@./skillgate $(ARGS)

## test: format check, lint, type check, all tests
test: deps
	@"$(DENO)" fmt --check >&2
	@"$(DENO)" lint >&2
	@"$(DENO)" check --frozen main.ts src tests bench packaging .ci/smoke.ts >&2
	@"$(DENO)" check --frozen views >&2
	@$(SAY_CORPORA)
	@"$(DENO)" test --frozen --cached-only --allow-all --unstable-worker-options tests/

unit: deps
	@$(SAY_CORPORA)
	@"$(DENO)" test --frozen --cached-only --allow-all --unstable-worker-options $(TESTS)

fmt: deps
	@"$(DENO)" fmt >&2

## bench: performance table (see bench/README.md)
bench: deps
	@"$(DENO)" run --frozen --cached-only --allow-all bench/main.ts

## bench-attack: only the "HTTP under attack" section (issue 11; about 2 minutes)
bench-attack: deps
	@$(DENO) run --frozen --cached-only --allow-all bench/main.ts --only=under-attack

## schema: write config.schema.json (from the option table) and overrides.schema.json
## (a test checks both are current)
schema: deps
	@$(DENO) run --frozen --cached-only --allow-write=config.schema.json,overrides.schema.json src/config/file/config_schema.ts

## views: rebuild src/mcp/apps/views.generated.ts (the MCP Apps views) from views/ with the
## pinned Deno's bundler (a test checks the committed file is a fresh build)
views: deps
	@"$(DENO)" run --frozen --cached-only --allow-read --allow-write --allow-run --allow-env views/build.ts

print-flags:
	@echo $(TRUSTED_FLAGS)

## compile: build dist/skillgate-<os>-<arch> with deno compile and the trusted flags, then
## smoke-test it; a failure removes it (offline: DENORT_BIN=/path/to/denort DENORT_SHA256=<sum>;
## the full deno CLI is refused). See .ci/compile.sh for where denort comes from.
## deno compile reads and writes Deno's cache (transpiled sources, npm packages, denort): the
## launcher's private one (a DENO_DIR you set only when no one else can reach it), never ~/.cache/deno.
compile: deps
	@deno_dir=$$(SKILLGATE_SETUP_ONLY=build-deno-dir ./skillgate) && \
	DENO_DIR="$$deno_dir" sh .ci/compile.sh "$(DENO)" dist $(TRUSTED_FLAGS)

## compile-plan: print the deno compile argv, one element per line, without building
compile-plan:
	@sh .ci/compile.sh --plan "$(DENO)" dist $(TRUSTED_FLAGS)

## mcpb: pack dist/skillgate-<version>.mcpb (the MCP Bundle) from the binaries in BINDIR
## (default dist/, what make compile built) into MCPB_OUT (default dist/)
BINDIR ?= dist
MCPB_OUT ?= dist
mcpb:
	@sh .ci/mcpb_pack.sh $(BINDIR) $(MCPB_OUT)

## descriptors: regenerate manifest.json, plugin/, server.json and the npm package.json from
## packaging/identity.json (a test checks the committed ones are current)
descriptors: deps
	@"$(DENO)" run --frozen --cached-only --allow-read --allow-write packaging/generate.ts

## smoke: the one smoke test (--version, permissions --json, an MCP stdio session on
## examples/skills) of a skillgate command; make compile and the release workflow run it too.
## make smoke CMD='dist/skillgate-linux-x64'  (default: this checkout's launcher)
SMOKE := .ci/smoke.ts
CMD ?= ./skillgate
smoke: deps
	@"$(DENO)" run --frozen --cached-only --allow-all $(SMOKE) -- $(CMD)

## deno, deps: install Deno and the locked dependencies (./skillgate does it on first run)
deno: deps

deps:
	@$(SETUP) >/dev/null

clean:
	rm -rf node_modules dist .bundle
