-- The render job graph, PostgreSQL dialect. Keep in step with ../sqlite/0004_job_graph.sql.
--
-- A `create_video` video is rendered by several jobs any worker may take:
-- prepare (fetch and check every input once) -> one clip job per image -> stitch -> branding.
-- 'render' stays a valid kind: a render job queued before this migration runs as a prepare.

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
    CHECK (kind IN ('render', 'prepare', 'clip', 'stitch', 'combine', 'branding',
                    'video_webhook', 'branding_webhook'));
-- 'cancelled': a sibling of a clip that failed for good; it will never run.
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled'));
-- The clip (its position in image_inputs) a clip job renders; NULL for every other kind.
ALTER TABLE jobs ADD COLUMN clip_index INTEGER;
-- A random value set by every claim. Heartbeat, completion and failure match on it, so a
-- worker that was paused past its lease (and whose job was claimed again, possibly by a
-- worker with the same name after a restart) can no longer write anything for the job.
ALTER TABLE jobs ADD COLUMN lease_token TEXT;
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
ALTER TABLE clips ADD COLUMN input_digest BIGINT;
-- Render progress of this clip (0-100). The video's progress is computed from the clips'
-- in SQL, so clips rendered by different processes add up.
ALTER TABLE clips ADD COLUMN progress INTEGER NOT NULL DEFAULT 0;
