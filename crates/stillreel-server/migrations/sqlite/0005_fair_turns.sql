-- Round-robin claims across accounts, SQLite dialect. Keep in step with
-- ../postgres/0005_fair_turns.sql.

-- When a job of this account was last claimed (ms). Claims prefer the account served longest
-- ago, so an account whose jobs are retried or queued early cannot take every turn of a
-- worker while another account's job waits behind them. NULL: never served (goes first).
ALTER TABLE accounts ADD COLUMN last_claim_at INTEGER;
