-- stillreel schema, PostgreSQL dialect. Keep in step with ../sqlite/0001_init.sql: the same
-- tables and columns, only the types differ.
--
-- Conventions: ids are UUIDs (`uuid` here, 16-byte BLOBs on SQLite); timestamps are
-- integer milliseconds since the Unix epoch (the server owns the clock, so leases compare
-- the same way on both backends); enums are TEXT checked against their allowed values.

CREATE TABLE accounts (
    id          uuid PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    clip_limit  INTEGER NOT NULL CHECK (clip_limit >= 1),
    created_at  BIGINT NOT NULL
);

-- Keys are 32 random bytes; only their SHA-256 is stored. A plain hash is enough because the
-- keys are high-entropy (no dictionary to guess from), and it lets one indexed lookup find
-- the key, which a salted slow hash would not.
CREATE TABLE api_keys (
    key_hash    bytea PRIMARY KEY NOT NULL,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    created_at  BIGINT NOT NULL
);

-- seq orders rows created within the same millisecond ("oldest first").
CREATE TABLE projects (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          uuid NOT NULL UNIQUE,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    name        TEXT NOT NULL,
    is_default  BOOLEAN NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX projects_by_account ON projects (account_id, seq);
-- One default project per account.
CREATE UNIQUE INDEX projects_one_default ON projects (account_id) WHERE is_default;

-- kind: 'create' (clips rendered from images) or 'combine' (existing clips joined).
-- request: the normalized request body (every default filled in), what the renderer reads.
-- video_key: storage key of the rendered file; the URL is built from it at answer time, so a
-- changed STILLREEL_PUBLIC_URL applies to old records too.
CREATE TABLE videos (
    id             uuid PRIMARY KEY NOT NULL,
    account_id     uuid NOT NULL REFERENCES accounts (id),
    project_id     uuid NOT NULL REFERENCES projects (id),
    kind           TEXT NOT NULL CHECK (kind IN ('create', 'combine')),
    request        jsonb NOT NULL,
    orientation    TEXT NOT NULL,
    resolution     TEXT NOT NULL,
    engine         TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('queued', 'in_progress', 'complete', 'error')),
    progress       INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    video_key      TEXT,
    error_code     TEXT,
    error_message  TEXT,
    error_field    TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    CHECK ((status = 'complete') = (video_key IS NOT NULL))
);
CREATE INDEX videos_by_account ON videos (account_id);

-- Clips are created with their video, one per image, clip_key NULL until rendered.
CREATE TABLE clips (
    id             uuid PRIMARY KEY NOT NULL,
    video_id       uuid NOT NULL REFERENCES videos (id),
    account_id     uuid NOT NULL REFERENCES accounts (id),
    position       BIGINT NOT NULL,
    image_url      TEXT NOT NULL,
    camera_motion  TEXT NOT NULL,
    vfx            jsonb,
    orientation    TEXT NOT NULL,
    resolution     TEXT NOT NULL,
    engine         TEXT NOT NULL,
    clip_key       TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    UNIQUE (video_id, position)
);

-- The clips a combined video is made of, in request order (a clip may repeat).
CREATE TABLE combine_clips (
    video_id  uuid NOT NULL REFERENCES videos (id),
    position  BIGINT NOT NULL,
    clip_id   uuid NOT NULL REFERENCES clips (id),
    PRIMARY KEY (video_id, position)
);

-- The branded render of a video, tracked on its own. speed_ramp is the effective value
-- (requested and two or more clips), fixed when the video is created.
CREATE TABLE brandings (
    video_id       uuid PRIMARY KEY NOT NULL REFERENCES videos (id),
    templates      jsonb NOT NULL,
    speed_ramp     BOOLEAN NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('queued', 'in_progress', 'complete', 'error')),
    progress       INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    video_key      TEXT,
    error_code     TEXT,
    error_message  TEXT,
    error_field    TEXT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    CHECK ((status = 'complete') = (video_key IS NOT NULL))
);

-- Idempotency-Key records, per account. response_body is NULL while the first request is
-- being handled; rows older than 24 h are ignored and replaced.
CREATE TABLE idempotency_keys (
    account_id     uuid NOT NULL REFERENCES accounts (id),
    key            TEXT NOT NULL,
    request_hash   bytea NOT NULL,
    response_body  TEXT,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_by_age ON idempotency_keys (created_at);

-- The render queue. A worker claims the oldest runnable job with one atomic UPDATE and holds
-- it through a lease it renews (heartbeat); an expired lease puts the job back.
CREATE TABLE jobs (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    video_id          uuid NOT NULL REFERENCES videos (id),
    kind              TEXT NOT NULL CHECK (kind IN ('render', 'combine', 'branding')),
    state             TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL DEFAULT 3,
    lease_owner       TEXT,
    lease_expires_at  BIGINT,
    run_after         BIGINT NOT NULL,
    last_error        TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX jobs_runnable ON jobs (state, run_after, id);
CREATE INDEX jobs_by_video ON jobs (video_id);
