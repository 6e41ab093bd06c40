-- The L1 side of an OP Stack chain (issue #32; README.md, "OP Stack"): the OptimismPortal's logs on
-- L1, read by the indexer's L1 follower (src/indexer/op-l1-follower.ts) when OP_L1_RPC_URL and
-- OP_PORTAL_ADDRESS are set, only up to the L1's finalized block (or OP_L1_CONFIRMATIONS below its
-- head), so an L1 reorg cannot leave a wrong row. Keyed by L1 data alone: an L2 reorg changes
-- nothing here, and the API joins them to the L2 rows when it reads (a deposit by its source hash,
-- a withdrawal by its withdrawal hash), so the join follows whatever the L2 tables hold. A range
-- read again after a crash writes the same rows under the same keys: ReplacingMergeTree keeps one.
-- Not deleted on an L2 rewind, and taken by a backup with the rest of the database.

-- TransactionDeposited(from, to, version, opaqueData): one row per deposit, by the source hash of
-- its L2 deposit transaction (user deposit: keccak256(bytes32(0) ++ keccak256(l1BlockHash ++
-- bytes32(logIndex)))), with its L1 block, time, transaction and that transaction's sender.
CREATE TABLE IF NOT EXISTS op_l1_deposits (
  source_hash String CODEC(ZSTD(1)),
  l1_block_number UInt64 CODEC(T64, ZSTD(1)),
  l1_block_hash String CODEC(ZSTD(1)),
  l1_log_index UInt32 CODEC(T64, ZSTD(1)),
  l1_timestamp DateTime('UTC') CODEC(ZSTD(1)),
  l1_transaction_hash String CODEC(ZSTD(1)),
  l1_transaction_origin String CODEC(ZSTD(1)),
  portal String CODEC(ZSTD(1)),
  deposit_from String CODEC(ZSTD(1)),
  deposit_to String CODEC(ZSTD(1)),
  version UInt256 CODEC(ZSTD(1)),
  opaque_data String CODEC(ZSTD(1))
) ENGINE = ReplacingMergeTree ORDER BY source_hash
  SETTINGS index_granularity = 1024;

-- WithdrawalProven (with OptimismPortal2's WithdrawalProvenExtension1 of the same transaction: the
-- proof submitter) and WithdrawalFinalized(withdrawalHash, success): one row per event.
-- proof_maturity_delay is the portal's proofMaturityDelaySeconds() read at the end of the range
-- that held the proof (NULL where the portal has none: the OptimismPortal of L2OutputOracle days).
CREATE TABLE IF NOT EXISTS op_l1_withdrawal_events (
  withdrawal_hash String CODEC(ZSTD(1)),
  kind LowCardinality(String),
  l1_block_number UInt64 CODEC(T64, ZSTD(1)),
  l1_block_hash String CODEC(ZSTD(1)),
  l1_log_index UInt32 CODEC(T64, ZSTD(1)),
  l1_timestamp DateTime('UTC') CODEC(ZSTD(1)),
  l1_transaction_hash String CODEC(ZSTD(1)),
  portal String CODEC(ZSTD(1)),
  success UInt8,
  proof_submitter String CODEC(ZSTD(1)),
  proof_maturity_delay Nullable(UInt64)
) ENGINE = ReplacingMergeTree ORDER BY (withdrawal_hash, l1_block_number, l1_log_index)
  SETTINGS index_granularity = 1024;
