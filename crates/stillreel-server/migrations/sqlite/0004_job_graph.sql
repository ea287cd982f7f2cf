-- The render job graph, SQLite dialect. Keep in step with ../postgres/0004_job_graph.sql.
--
-- A `create_video` video is rendered by several jobs any worker may take:
-- prepare (fetch and check every input once) -> one clip job per image -> stitch -> branding.
-- 'render' stays a valid kind: a render job queued before this migration runs as a prepare.

-- New kinds and the 'cancelled' state change CHECK constraints, which SQLite cannot alter:
-- the jobs table is rebuilt as in 0003 (rows keep their ids, AUTOINCREMENT's sequence is
-- carried over). A migration that adds columns to jobs after this one must do the same.
--   clip_index: the clip (position in image_inputs) of a clip job; NULL for other kinds.
--   lease_token: random per claim; heartbeat, completion and failure match on it, so a
--     worker paused past its lease can no longer write anything for the job.
--   'cancelled': a sibling of a clip that failed for good; it will never run.
CREATE TABLE jobs_new (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    video_id          BLOB NOT NULL REFERENCES videos (id),
    kind              TEXT NOT NULL CHECK (kind IN ('render', 'prepare', 'clip', 'stitch', 'combine',
                                                    'branding', 'video_webhook', 'branding_webhook')),
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
    lease_token       TEXT
);
INSERT INTO jobs_new (id, video_id, kind, state, attempts, max_attempts, lease_owner,
                      lease_expires_at, run_after, last_error, created_at, updated_at)
SELECT id, video_id, kind, state, attempts, max_attempts, lease_owner,
       lease_expires_at, run_after, last_error, created_at, updated_at
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
-- One clip job per clip, however often prepare runs.
CREATE UNIQUE INDEX jobs_one_per_clip ON jobs (video_id, clip_index) WHERE kind = 'clip';

-- Clips still to render. Prepare sets it; each clip completion decrements it in the
-- transaction that records the clip, and the one that brings it to 0 enqueues the stitch in
-- that same transaction: no job waits for another, and the stitch is enqueued exactly once.
ALTER TABLE videos ADD COLUMN clips_left INTEGER;
-- The checked copy of the music (audio_url) that prepare stored, and its format.
ALTER TABLE videos ADD COLUMN music_key TEXT;
ALTER TABLE videos ADD COLUMN music_format TEXT;

-- What prepare learned about each input, so a clip job on any machine renders from the
-- stored copy without fetching again: its storage key and format, its upright size, its EXIF
-- orientation and its digest (the `auto` motion rule reads size and digest).
ALTER TABLE clips ADD COLUMN input_key TEXT;
ALTER TABLE clips ADD COLUMN input_format TEXT;
ALTER TABLE clips ADD COLUMN input_width INTEGER;
ALTER TABLE clips ADD COLUMN input_height INTEGER;
ALTER TABLE clips ADD COLUMN input_orientation INTEGER;
ALTER TABLE clips ADD COLUMN input_digest INTEGER;
-- Render progress of this clip (0-100). The video's progress is computed from the clips'
-- in SQL, so clips rendered by different processes add up.
ALTER TABLE clips ADD COLUMN progress INTEGER NOT NULL DEFAULT 0;
