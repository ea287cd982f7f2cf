-- The loops that claim a job; SQLite dialect. Keep in step with
-- ../postgres/0012_claim_walks.sql, which also gives PostgreSQL's account step of the claim
-- a count of each account's queued finishing jobs and indexes in turn order (SQLite claims in
-- one statement under its single writer, `runnable!` in `queue/claims.rs`, and keeps no
-- per-account counts).
--
-- `lane` (`queue/kind.rs`, `Lane`) is written by the code that queues a job, as its claim rank
-- is: 'model' for model calls, 'render' for everything else. The claim reads this column, so
-- a new kind on either lane changes no SQL. Rows queued before this migration get theirs from
-- their kind's name, once, here.
ALTER TABLE jobs ADD COLUMN lane TEXT NOT NULL DEFAULT 'render';
UPDATE jobs SET lane = 'model' WHERE kind = 'generate';
