# Everyday commands. `make help` lists them.
.PHONY: help install build test start migrate bench bench-ingest bench-api bench-socket bench-ui clean ci

help:
	@echo "make install      npm ci"
	@echo "make build        compile TypeScript into build/"
	@echo "make test         the whole test suite (npm test)"
	@echo "make start        explorer start with embedded stores and a devnet"
	@echo "make migrate      apply pending migrations"
	@echo "make bench        ingest, API, websocket and web UI benchmarks (bench-ingest, bench-api, bench-socket, bench-ui)"
	@echo "make ci           what CI runs (.ci/run)"

install:
	npm ci

build:
	npx tsc -p .

test:
	npm test

start:
	npm start

migrate: build
	node build/src/bin/explorer.js migrate

bench: bench-ingest bench-api bench-socket bench-ui

bench-ingest: build
	node build/bench/ingest.js
	@echo "== the same with the derived-data lanes and the watchlist matcher running"
	BENCH_DERIVED=1 BENCH_BREAKDOWN=0 node build/bench/ingest.js
	@echo "== watchlist matching, 100,000 watched addresses"
	node build/bench/watchlist.js

bench-api: build
	node build/bench/api.js

# One new_block to 10,000 websockets subscribed to blocks:new_block (BENCH_SOCKETS to change).
bench-socket: build
	node build/bench/socket-fanout.js

bench-ui: build
	node build/bench/ui.js

ci:
	bash .ci/run

clean:
	rm -rf build .cache
