-- Keep every column of each table's sort key in the primary index in memory. By default
-- (primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 0.9, ClickHouse 24.3 and
-- later) a part keeps only the key's first column when that column changes at 90% or more of
-- its granules. It does in every table here: an address (or token) changes at nearly every
-- granule of address_transactions and its kind, a block at nearly every granule of
-- transactions. Then a condition on the later columns selects no granule less: a deep page of a
-- busy address (address = X AND (block_number, transaction_index) below a cursor) read every
-- granule of that address's history. On bench-api's 5,000,000-transaction store, for an address
-- with 406,711 transactions, its 101st oldest page selected 51 of 1,221 granules of
-- address_transactions and took 17.6 ms for the keys (29 ms for the page) against 1 granule
-- and 4.8 ms (11 ms for the page, as its first page) with the setting at 1: the cost of a deep
-- page no longer grows with the address's history (bench/README.md, "The 5,000,000-transaction
-- curve"). The cost is memory: the later key columns of each granule (a few bytes per 1,024 or
-- 8,192 rows). A setting changes metadata only; a server that loaded a part's index before the
-- change keeps it until it is unloaded, hence SYSTEM UNLOAD PRIMARY KEY (the next read loads it
-- again, with every column). Rerunning a statement is a no-op. Tables whose key has one column
-- (blocks, hash_index) have no later column to keep.

ALTER TABLE withdrawals MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY withdrawals;

ALTER TABLE transactions MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY transactions;

ALTER TABLE address_transactions MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY address_transactions;

ALTER TABLE logs MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY logs;

ALTER TABLE address_logs MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY address_logs;

ALTER TABLE token_transfers MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY token_transfers;

ALTER TABLE address_token_transfers MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY address_token_transfers;

ALTER TABLE token_transfers_by_token MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY token_transfers_by_token;

ALTER TABLE internal_transactions MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY internal_transactions;

ALTER TABLE address_internal_transactions MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY address_internal_transactions;

ALTER TABLE coin_balance_history MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY coin_balance_history;

ALTER TABLE block_rewards MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
SYSTEM UNLOAD PRIMARY KEY block_rewards;
