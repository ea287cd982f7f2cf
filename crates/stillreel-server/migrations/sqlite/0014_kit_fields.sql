-- Which parts of a video came from its brand kit (a JSON list of field prefixes:
-- "branding.intro", "branding.outro", "audio_url"), NULL when none: a failure of one of them
-- is reported at `branding.brand_kit` (docs/API-DESIGN.md#render-failures). Additive. Keep
-- in step with ../postgres/0014_kit_fields.sql.
ALTER TABLE videos ADD COLUMN kit_fields TEXT;
