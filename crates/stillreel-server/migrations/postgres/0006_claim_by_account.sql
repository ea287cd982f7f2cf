-- Claims that cost the same however deep the queue is, PostgreSQL only (SQLite has one writer
-- and keeps its single-statement claim; see queue.rs).
--
-- The claim order (queue.rs, `runnable!`) sorts by facts of the job's *account* (jobs it has
-- running, whether it has a finishing job waiting, when it was last served) before facts of
-- the job. Sorting every queued job by those at each claim grew with the queue and needed one
-- lock over the whole queue to keep the per-account cap. Instead the claim now picks an
-- account first, from the few accounts with work, locking that account's row (which keeps the
-- cap exact and lets claims of different accounts run in parallel), then the account's next
-- job through an index in job order. For that the account keeps counts of its queued and
-- running jobs, and every job carries its account and the keys of its order.

-- The job's account and its video's creation time (copied at insert: neither ever changes),
-- and its rank in the claim order: 0 a job that finishes a started video (stitch, branding,
-- webhook deliveries), 1 a clip, 2 a job that starts one (prepare, render, combine).
ALTER TABLE jobs ADD COLUMN account_id uuid;
ALTER TABLE jobs ADD COLUMN video_created_at BIGINT;
ALTER TABLE jobs ADD COLUMN claim_rank SMALLINT;

CREATE FUNCTION jobs_claim_rank(kind TEXT) RETURNS SMALLINT
    LANGUAGE sql IMMUTABLE
    RETURN CASE kind WHEN 'clip' THEN 1 WHEN 'prepare' THEN 2 WHEN 'render' THEN 2
                     WHEN 'combine' THEN 2 ELSE 0 END;

UPDATE jobs j SET account_id = v.account_id, video_created_at = v.created_at,
                  claim_rank = jobs_claim_rank(j.kind)
FROM videos v WHERE v.id = j.video_id;
ALTER TABLE jobs ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE jobs ALTER COLUMN video_created_at SET NOT NULL;
ALTER TABLE jobs ALTER COLUMN claim_rank SET NOT NULL;

-- Filled by the database, so no INSERT in the code has to know about them.
CREATE FUNCTION jobs_fill_claim_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT v.account_id, v.created_at INTO NEW.account_id, NEW.video_created_at
    FROM videos v WHERE v.id = NEW.video_id;
    NEW.claim_rank := jobs_claim_rank(NEW.kind);
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_fill_claim_keys BEFORE INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_fill_claim_keys();

-- An account's queued and running jobs, kept by the triggers below on every change of a
-- job's state however it happens (claim, completion, retry, lease rescue, cancel, delete), so
-- no code path can forget one.
ALTER TABLE accounts ADD COLUMN jobs_queued INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN jobs_running INTEGER NOT NULL DEFAULT 0;
UPDATE accounts a SET
    jobs_queued = (SELECT COUNT(*) FROM jobs j WHERE j.account_id = a.id AND j.state = 'queued'),
    jobs_running = (SELECT COUNT(*) FROM jobs j WHERE j.account_id = a.id AND j.state = 'running');

-- Counts the job's old state out and its new state in. A job that starts running is a claim:
-- its account's turn is stamped with the claim's time (the job's updated_at), for the round
-- robin between accounts.
CREATE FUNCTION jobs_count_by_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        UPDATE accounts SET
            jobs_queued = jobs_queued + (NEW.state = 'queued')::int - (OLD.state = 'queued')::int,
            jobs_running = jobs_running + (NEW.state = 'running')::int
                                        - (OLD.state = 'running')::int,
            last_claim_at = CASE WHEN NEW.state = 'running' THEN NEW.updated_at
                                 ELSE last_claim_at END
        WHERE id = NEW.account_id;
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        UPDATE accounts SET
            jobs_queued = jobs_queued + (NEW.state = 'queued')::int,
            jobs_running = jobs_running + (NEW.state = 'running')::int
        WHERE id = NEW.account_id;
        RETURN NULL;
    ELSE
        UPDATE accounts SET
            jobs_queued = jobs_queued - (OLD.state = 'queued')::int,
            jobs_running = jobs_running - (OLD.state = 'running')::int
        WHERE id = OLD.account_id;
        RETURN NULL;
    END IF;
END $$;
CREATE TRIGGER jobs_count_on_insert AFTER INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_count_by_account();
CREATE TRIGGER jobs_count_on_state AFTER UPDATE OF state ON jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state)
    EXECUTE FUNCTION jobs_count_by_account();
CREATE TRIGGER jobs_count_on_delete AFTER DELETE ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_count_by_account();

-- The accounts with work: few, whatever the number of accounts.
CREATE INDEX accounts_with_queued_jobs ON accounts (jobs_running, last_claim_at)
    WHERE jobs_queued > 0;
-- An account's queued jobs in claim order.
CREATE INDEX jobs_claim_order ON jobs (account_id, claim_rank, video_created_at, clip_index,
                                       run_after, id)
    WHERE state = 'queued';
