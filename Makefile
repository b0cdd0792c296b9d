# OpenBench convention: `make EXE=<path>` builds the release binary and puts it at <path>.
EXE ?= deepred

.PHONY: all test clean
all:
	cargo build --release --bin deepred
	cp target/release/deepred $(EXE)

test:
	cargo test --release

clean:
	cargo clean
