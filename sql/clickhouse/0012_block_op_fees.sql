-- OP Stack (issue #32): a block's `op_fees`, the L1 data fees and operator fees its transactions
-- paid beyond gas used x effective gas price, so the daily and hourly fee figures and the 24-hour
-- counters (reads/daily.ts: burnt_fees + priority_fees + op_fees) are the sum of the transactions'
-- `fee` there too, still without reading a transaction row. 0 on every other chain, and on blocks
-- stored before this release (their transactions' fee left the L1 fee out too, README.md "OP
-- Stack"). Rewound and backed up with its row, as every column of the table.
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS op_fees UInt256 DEFAULT 0 CODEC(ZSTD(1));
