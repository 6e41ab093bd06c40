# Everyday commands. `make help` lists them.
.PHONY: help install build test start migrate bench bench-ingest bench-ingest-growth bench-ingest-multi bench-storage bench-api bench-api-growth bench-socket bench-ui clean ci

help:
	@echo "make install      npm ci"
	@echo "make build        compile TypeScript into build/"
	@echo "make test         the whole test suite (npm test)"
	@echo "make start        explorer start with embedded stores and a devnet"
	@echo "make migrate      apply pending migrations"
	@echo "make bench        every benchmark (ingest + storage, API, websocket, web UI) and one report in bench-output/"
	@echo "make bench-ingest-growth  the ingest over 300, 1,200 and 4,800 blocks (does it keep its rate?)"
	@echo "make bench-ingest-multi  txs/s of 1 and 2 indexer processes sharing one store, beside one alone (needs Debian's postgresql)"
	@echo "make bench-api    the API under load: cached, and uncached reads (transaction, block, address, its pages, search) beside the bare uWS and point-store ceilings"
	@echo "                  and again while the indexer follows a mainnet-pace head in the same process"
	@echo "                  (BENCH_API_TXS=5000000 make bench-api: the same at 5,000,000 txs, issue #30's second size,"
	@echo "                  held within 10% of the 1,000,000-tx run's figures kept in bench-output/ by the last such run)"
	@echo "make bench-api-growth  make bench-api at 1,000,000 then 5,000,000 txs, back to back: the second prints the within-10% targets (~100 min)"
	@echo "make bench-storage  bytes per transaction of every ClickHouse table and column after merges, and of PostgreSQL's point tables"
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

# One command, one report: bench/run.ts runs what bench-ingest, bench-api, bench-socket and
# bench-ui run, each in its own process, and writes bench-output/report.md and report.json.
# BENCH_RPC_URL=<node> BENCH_FROM=<n> BENCH_TO=<m> indexes an operator's node over that range.
bench: build
	node build/src/ui/build-assets.js
	node build/bench/run.js

bench-ingest: build
	node build/bench/ingest.js
	@echo "== the same with the derived-data lanes and the watchlist matcher running"
	BENCH_DERIVED=1 BENCH_BREAKDOWN=0 node build/bench/ingest.js
	@echo "== watchlist matching, 100,000 watched addresses"
	node build/bench/watchlist.js

# Growth: the same ingest over 300, 1,200 and 4,800 blocks, each from empty stores; the larger
# runs must keep the smallest's rate (printed as targets).
bench-ingest-growth: build
	BENCH_BLOCKS=300,1200,4800 node build/bench/ingest.js

# Issue #22: 1 and 2 `explorer indexer` processes sharing one store (PostgreSQL server and chDB
# behind ClickHouse's HTTP interface, on the same cores) beside one process on the default path.
bench-ingest-multi: build
	node build/bench/ingest-multi.js

# Where the stored bytes go: the benchmark chain stored and merged, per ClickHouse table and
# column, and PostgreSQL's point tables (heap, TOAST, indexes).
bench-storage: build
	node build/bench/storage.js

# The API under load over a synthetic chain of 1,000,000 txs (BENCH_API_TXS to change; issue #30
# also wants its uncached figures within 10% at 5,000,000): bench/README.md, "API".
bench-api: build
	node build/bench/api.js

bench-api-growth: build
	node build/bench/api.js
	BENCH_API_TXS=5000000 node build/bench/api.js

# One new_block to 10,000 websockets subscribed to blocks:new_block (BENCH_SOCKETS to change).
bench-socket: build
	node build/bench/socket-fanout.js

bench-ui: build
	node build/src/ui/build-assets.js
	node build/bench/ui.js

ci:
	bash .ci/run

clean:
	rm -rf build .cache
