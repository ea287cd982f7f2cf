-- The record a job makes, in the row; SQLite dialect. Keep in step with ../postgres/0009_job_makes.sql.
--
-- A job that fails for good fails the record it makes: 'video' (a prepare, a clip, a stitch,
-- a combine, a legacy render), 'branding' (the branded render), or nothing (a webhook
-- delivery). The code that queues a job writes it from the job's kind (`queue/kind.rs`,
-- `Makes`), as it writes the claim rank; the lease sweep and the cancelling of sibling jobs
-- read it, so no SQL names kinds and a new kind changes no SQL. Rows queued before this
-- migration get theirs from their kind's name, once, here.
ALTER TABLE jobs ADD COLUMN makes TEXT CHECK (makes IN ('video', 'branding'));
UPDATE jobs SET makes = CASE
    WHEN kind IN ('render', 'prepare', 'generate', 'clip', 'stitch', 'combine') THEN 'video'
    WHEN kind = 'branding' THEN 'branding'
END;
