-- Kinds of job in code, ranks in the row; SQLite dialect. Keep in step with
-- ../postgres/0007_stored_claim_rank.sql.
--
-- A kind of job is one file of the worker (`worker/kinds/`): the table no longer lists the
-- kinds (a CHECK constraint naming them made every new kind a migration), it only requires a
-- lower-case name. Each job carries its claim rank, written when it is queued
-- (`queue/kind.rs`, `ClaimRank`): 0 a job that finishes a started video, 1 a clip, 2 a job
-- that starts one. The claim orders by this column instead of naming kinds in SQL.
--
-- SQLite cannot drop a CHECK constraint: the jobs table is rebuilt as in 0004 (rows keep
-- their ids, AUTOINCREMENT's sequence is carried over).
CREATE TABLE jobs_new (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    video_id          BLOB NOT NULL REFERENCES videos (id),
    kind              TEXT NOT NULL CHECK (kind <> '' AND kind NOT GLOB '*[^a-z0-9_]*'),
    state             TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL DEFAULT 3,
    lease_owner       TEXT,
    lease_expires_at  INTEGER,
    run_after         INTEGER NOT NULL,
    last_error        TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    clip_index        INTEGER,
    lease_token       TEXT,
    claim_rank        INTEGER NOT NULL
);
INSERT INTO jobs_new (id, video_id, kind, state, attempts, max_attempts, lease_owner,
                      lease_expires_at, run_after, last_error, created_at, updated_at,
                      clip_index, lease_token, claim_rank)
SELECT id, video_id, kind, state, attempts, max_attempts, lease_owner,
       lease_expires_at, run_after, last_error, created_at, updated_at, clip_index, lease_token,
       CASE kind WHEN 'clip' THEN 1 WHEN 'prepare' THEN 2 WHEN 'render' THEN 2
                 WHEN 'combine' THEN 2 ELSE 0 END
FROM jobs;
INSERT INTO sqlite_sequence (name, seq)
SELECT 'jobs_new', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'jobs_new');
UPDATE sqlite_sequence
SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0))
WHERE name = 'jobs_new';
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_runnable ON jobs (state, run_after, id);
CREATE INDEX jobs_by_video ON jobs (video_id);
CREATE UNIQUE INDEX jobs_one_per_clip ON jobs (video_id, clip_index) WHERE kind = 'clip';
