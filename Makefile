# The two set-up commands of the README: `make demo` and `make test`.
.PHONY: deps build demo test

deps:
	@scripts/install-deps.sh

build: deps
	cargo build --release

# The main job on a shipped example: MultiSE Figure 1 under dse, its tests
# written to braid-out/ and replayed.
demo: build
	./target/release/braid run examples/paper/figure1.bir --out braid-out/figure1
	./target/release/braid replay examples/paper/figure1.bir braid-out/figure1/tests/*.json

# The whole test suite.
test: deps
	cargo test --workspace
