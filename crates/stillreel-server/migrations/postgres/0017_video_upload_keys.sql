-- The uploads a video names, by storage key, PostgreSQL dialect. Keep in step with
-- ../sqlite/0017_video_upload_keys.sql.

-- Each key between spaces (' uploads/a/b.jpg uploads/a/c.heic '), taken from the request's
-- URLs as the fetcher normalizes them ('/x/../', '/./', '%2e%2e' and backslashes resolved),
-- so `delete_upload` refuses a file a queued or rendering video will read however its URL
-- was spelled. NULL: no upload, or a video stored before this column (its request's text is
-- searched instead).
ALTER TABLE videos ADD COLUMN upload_keys TEXT;
