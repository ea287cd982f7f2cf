-- Video titles and the upload listing, PostgreSQL dialect. Keep in step with
-- ../sqlite/0013_video_title.sql.

-- The request's title as cleaned by the core (NULL: none), echoed on the record.
ALTER TABLE videos ADD COLUMN title TEXT;
-- The title lower-cased by the server (Rust's Unicode case folding), which `get_videos?q=`
-- matches with LIKE against the lower-cased query: SQLite's own LOWER() and LIKE fold ASCII
-- only, PostgreSQL's fold by locale, so folding in one place makes both backends agree.
ALTER TABLE videos ADD COLUMN title_folded TEXT;

-- `get_uploads` lists an account's uploads newest first, a page at a time (keyset on
-- created_at, id), as the library lists videos.
CREATE INDEX uploads_listing ON uploads (account_id, created_at DESC, id DESC);
