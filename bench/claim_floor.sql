-- The floor for queue claims per second (bench/scale.sh): a bare one-job-at-a-time claim with
-- FOR UPDATE SKIP LOCKED and its completion, as pgbench runs it, on a table of the same
-- shape as a queue (a partial index on the queued rows). No accounts, no fairness, no
-- lease token check: what the database does for the least a claim can be. The claim commits
-- without waiting for its WAL flush, as stillreel's claim does; the completion flushes.
BEGIN;
SET LOCAL synchronous_commit = off;
WITH next AS MATERIALIZED (
    SELECT id FROM floor_jobs WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
)
UPDATE floor_jobs SET state = 'running', lease_token = md5(random()::text)
FROM next WHERE floor_jobs.id = next.id
RETURNING floor_jobs.id AS job \gset
COMMIT;
UPDATE floor_jobs SET state = 'done', lease_token = NULL WHERE id = :job;
