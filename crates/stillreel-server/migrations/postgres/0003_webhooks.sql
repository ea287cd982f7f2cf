-- Completion webhooks, PostgreSQL dialect. Keep in step with ../sqlite/0003_webhooks.sql.

-- The account's signing secret (`whsec_` + base64 of 32 random bytes). After a rotation the
-- previous secret keeps signing too (a second signature) until webhook_secret_previous_until,
-- so receivers can switch without missing an event. NULL for accounts made before webhooks
-- existed: `stillreel accounts rotate-webhook-secret` gives them one.
ALTER TABLE accounts ADD COLUMN webhook_secret TEXT;
ALTER TABLE accounts ADD COLUMN webhook_secret_previous TEXT;
ALTER TABLE accounts ADD COLUMN webhook_secret_previous_until BIGINT;

-- The request's webhook_url, in a column so get_video need not parse the stored request.
ALTER TABLE videos ADD COLUMN webhook_url TEXT;

-- The outbox: one row per event, written in the transaction that settles the video or its
-- branded render (together with its delivery job), so a crash between settling and sending
-- loses nothing. One event per subject at most: a status never moves back, so a video
-- settles once and its branded render settles once. message_id is the `webhook-id` header of
-- every attempt; payload is fixed at the first attempt so retries send the same bytes.
CREATE TABLE webhook_deliveries (
    video_id     uuid NOT NULL REFERENCES videos (id),
    subject      TEXT NOT NULL CHECK (subject IN ('video', 'branding')),
    event_type   TEXT NOT NULL,
    message_id   TEXT NOT NULL UNIQUE,
    url          TEXT NOT NULL,
    event_at     BIGINT NOT NULL,
    payload      TEXT,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_status  INTEGER,
    last_error   TEXT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (video_id, subject)
);

-- Deliveries run as jobs of two new kinds.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
    CHECK (kind IN ('render', 'combine', 'branding', 'video_webhook', 'branding_webhook'));
