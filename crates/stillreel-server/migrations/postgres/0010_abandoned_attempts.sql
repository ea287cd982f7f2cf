-- Attempts whose worker vanished (its lease expired), waiting for the orphan sweep. Keep in step
-- with ../sqlite/0010_abandoned_attempts.sql.
--
-- A worker killed between storing a file and recording it leaves an object no record points
-- at. Every stored name a job writes carries its lease token, so the sweep that puts such a
-- job back in the queue also writes its video and token here, in the same transaction; the
-- orphan sweep then lists only that video's folder, removes the names carrying the token,
-- and deletes the row. Nothing lists the whole store.
CREATE TABLE abandoned_attempts (
    id          BIGSERIAL PRIMARY KEY,
    video_id    UUID NOT NULL,
    token       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
