-- Uploads, the video library and brand kits, SQLite dialect. Keep in step with
-- ../postgres/0008_library.sql.

-- What a record echoes of the soundtrack (the request's, or its brand kit's).
ALTER TABLE videos ADD COLUMN audio_url TEXT;
UPDATE videos SET audio_url = json_extract(request, '$.audio_url');
-- A deleted video: gone from get_video and get_videos, its files removed from storage, its
-- clips refused by combine. The row stays, so combined videos made of its clips keep theirs.
ALTER TABLE videos ADD COLUMN deleted_at INTEGER;
-- The library lists an account's videos newest first, a page at a time (keyset on
-- created_at, id).
CREATE INDEX videos_library ON videos (account_id, created_at DESC, id DESC);

-- Files an account uploaded (POST /upload_media): stored under `key`, counted against the
-- account's upload quota.
CREATE TABLE uploads (
    id          BLOB PRIMARY KEY NOT NULL,
    account_id  BLOB NOT NULL REFERENCES accounts (id),
    key         TEXT NOT NULL,
    media_type  TEXT NOT NULL,
    bytes       INTEGER NOT NULL CHECK (bytes >= 0),
    created_at  INTEGER NOT NULL
);
CREATE INDEX uploads_by_account ON uploads (account_id);

-- Bytes of uploads an account may keep stored.
ALTER TABLE accounts ADD COLUMN upload_quota_bytes INTEGER NOT NULL DEFAULT 1073741824;

-- Saved branding: `body` is the validated kit (name, intro, outro, speed_ramp, audio_url).
CREATE TABLE brand_kits (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          BLOB NOT NULL UNIQUE,
    account_id  BLOB NOT NULL REFERENCES accounts (id),
    body        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX brand_kits_by_account ON brand_kits (account_id, seq);
