-- Nothing to change in SQLite; kept so both backends number their migrations alike. Keep in
-- step with ../postgres/0012_finishing_counts.sql, which gives PostgreSQL's account step of the
-- claim a count of each account's queued finishing jobs and indexes in turn order. SQLite
-- claims in one statement under its single writer (`runnable!` in `queue/claims.rs`) and keeps
-- no per-account counts.
SELECT 1;
