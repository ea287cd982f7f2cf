-- Completion webhooks, SQLite dialect. Keep in step with ../postgres/0003_webhooks.sql.

-- The account's signing secret (`whsec_` + base64 of 32 random bytes). After a rotation the
-- previous secret keeps signing too (a second signature) until webhook_secret_previous_until,
-- so receivers can switch without missing an event. NULL for accounts made before webhooks
-- existed: `stillreel accounts rotate-webhook-secret` gives them one.
ALTER TABLE accounts ADD COLUMN webhook_secret TEXT;
ALTER TABLE accounts ADD COLUMN webhook_secret_previous TEXT;
ALTER TABLE accounts ADD COLUMN webhook_secret_previous_until INTEGER;

-- The request's webhook_url, in a column so get_video need not parse the stored request.
ALTER TABLE videos ADD COLUMN webhook_url TEXT;

-- The outbox: one row per event, written in the transaction that settles the video or its
-- branded render (together with its delivery job), so a crash between settling and sending
-- loses nothing. One event per subject at most: a status never moves back, so a video
-- settles once and its branded render settles once. message_id is the `webhook-id` header of
-- every attempt; payload is fixed at the first attempt so retries send the same bytes.
CREATE TABLE webhook_deliveries (
    video_id     BLOB NOT NULL REFERENCES videos (id),
    subject      TEXT NOT NULL CHECK (subject IN ('video', 'branding')),
    event_type   TEXT NOT NULL,
    message_id   TEXT NOT NULL UNIQUE,
    url          TEXT NOT NULL,
    event_at     INTEGER NOT NULL,
    payload      TEXT,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_status  INTEGER,
    last_error   TEXT,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (video_id, subject)
);

-- Deliveries run as jobs of two new kinds. SQLite cannot change a CHECK constraint in place,
-- so the jobs table is rebuilt (nothing references it; its rows keep their ids). A migration
-- that adds columns to jobs before this one must add them to jobs_new and the copy too.
CREATE TABLE jobs_new (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    video_id          BLOB NOT NULL REFERENCES videos (id),
    kind              TEXT NOT NULL CHECK (kind IN ('render', 'combine', 'branding', 'video_webhook', 'branding_webhook')),
    state             TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL DEFAULT 3,
    lease_owner       TEXT,
    lease_expires_at  INTEGER,
    run_after         INTEGER NOT NULL,
    last_error        TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
INSERT INTO jobs_new (id, video_id, kind, state, attempts, max_attempts, lease_owner,
                      lease_expires_at, run_after, last_error, created_at, updated_at)
SELECT id, video_id, kind, state, attempts, max_attempts, lease_owner,
       lease_expires_at, run_after, last_error, created_at, updated_at
FROM jobs;
-- Keep AUTOINCREMENT's promise across the rebuild: ids of deleted jobs are never reused.
INSERT INTO sqlite_sequence (name, seq)
SELECT 'jobs_new', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'jobs_new');
UPDATE sqlite_sequence
SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0))
WHERE name = 'jobs_new';
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_runnable ON jobs (state, run_after, id);
CREATE INDEX jobs_by_video ON jobs (video_id);
