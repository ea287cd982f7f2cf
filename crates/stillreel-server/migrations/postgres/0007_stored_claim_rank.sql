-- Kinds of job in code, ranks in the row. Keep in step with ../sqlite/0007_stored_claim_rank.sql.
--
-- A kind of job is one file of the worker (`worker/kinds/`): the table no longer lists the
-- kinds (a CHECK constraint naming them made every new kind a migration), it only requires a
-- lower-case name. The claim rank is written by the code that queues a job (`queue/kind.rs`,
-- `ClaimRank`), from the job's kind, instead of by this database's `jobs_claim_rank`
-- function: a new kind then changes no SQL, and both backends order claims by the same stored
-- column.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind ~ '^[a-z0-9_]+$');

CREATE OR REPLACE FUNCTION jobs_fill_claim_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT v.account_id, v.created_at INTO NEW.account_id, NEW.video_created_at
    FROM videos v WHERE v.id = NEW.video_id;
    RETURN NEW;
END $$;
DROP FUNCTION jobs_claim_rank(TEXT);
