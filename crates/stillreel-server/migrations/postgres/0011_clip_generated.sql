-- What of a clip a model made (docs/PROVIDERS.md): a JSON list of {role, model}, NULL when
-- nothing. Additive. Keep in step with ../sqlite/0011_clip_generated.sql.
ALTER TABLE clips ADD COLUMN generated jsonb;
