-- What the renderer could not do for a clip as asked and did instead (the clip record's
-- `notes`, docs/API-DESIGN.md): a JSON list of sentences, NULL when nothing. Additive. Keep in
-- step with ../postgres/0016_clip_notes.sql.
ALTER TABLE clips ADD COLUMN notes TEXT;
