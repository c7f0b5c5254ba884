# The two commands of the README, and a few more. Each sets up libtorch itself (cached per machine).
.PHONY: run test setup bench

run:    ## set up, then a short self-play -> train -> evaluate run on configs/default.toml
	scripts/run-default

test:   ## set up, then every test
	scripts/test

setup:  ## install libtorch (once) and build the release binary
	scripts/setup

bench:  ## every performance figure, as a table and JSON
	scripts/setup && target/release/checkers-zero bench --json bench.json
