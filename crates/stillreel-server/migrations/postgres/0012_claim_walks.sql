-- Claims that stop at the first account with work, and the lane of a job. Keep in step with
-- ../sqlite/0012_claim_walks.sql (which has only the lane: SQLite's one-statement claim has no
-- account step).
--
-- The account step of the claim (`queue/claims.rs`) orders accounts by jobs running, then
-- "has a finishing job waiting", then turn (last_claim_at). The middle key was a NOT EXISTS
-- over the account's jobs, and the turn was COALESCE(last_claim_at, 0), which no index held:
-- every claim evaluated both subqueries for every account with work and sorted them (about
-- 1 ms at 64 accounts, the claims benchmark's whole gap to the bare claim). Now the account
-- keeps a count of its queued finishing jobs (claim rank 0) beside its other counts, and two
-- indexes hold the order: the claim asks for the first account in turn among those with a
-- finishing job, and the first in turn among all with work, and takes the better of the two.
-- Each walks its index and stops at the first account whose job is runnable now.
ALTER TABLE accounts ADD COLUMN jobs_finishing INTEGER NOT NULL DEFAULT 0;
UPDATE accounts a SET jobs_finishing = (SELECT COUNT(*) FROM jobs j
    WHERE j.account_id = a.id AND j.state = 'queued' AND j.claim_rank = 0);

-- As in 0006, and the finishing count: a job's claim rank never changes after its insert.
CREATE OR REPLACE FUNCTION jobs_count_by_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        UPDATE accounts SET
            jobs_queued = jobs_queued + (NEW.state = 'queued')::int - (OLD.state = 'queued')::int,
            jobs_running = jobs_running + (NEW.state = 'running')::int
                                        - (OLD.state = 'running')::int,
            jobs_finishing = jobs_finishing
                + (NEW.state = 'queued' AND NEW.claim_rank = 0)::int
                - (OLD.state = 'queued' AND OLD.claim_rank = 0)::int,
            last_claim_at = CASE WHEN NEW.state = 'running' THEN NEW.updated_at
                                 ELSE last_claim_at END
        WHERE id = NEW.account_id;
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        UPDATE accounts SET
            jobs_queued = jobs_queued + (NEW.state = 'queued')::int,
            jobs_running = jobs_running + (NEW.state = 'running')::int,
            jobs_finishing = jobs_finishing + (NEW.state = 'queued' AND NEW.claim_rank = 0)::int
        WHERE id = NEW.account_id;
        RETURN NULL;
    ELSE
        UPDATE accounts SET
            jobs_queued = jobs_queued - (OLD.state = 'queued')::int,
            jobs_running = jobs_running - (OLD.state = 'running')::int,
            jobs_finishing = jobs_finishing - (OLD.state = 'queued' AND OLD.claim_rank = 0)::int
        WHERE id = OLD.account_id;
        RETURN NULL;
    END IF;
END $$;

-- The accounts with work in turn order, and those with a finishing job waiting.
DROP INDEX accounts_with_queued_jobs;
CREATE INDEX accounts_in_turn ON accounts (jobs_running, COALESCE(last_claim_at, 0), id)
    WHERE jobs_queued > 0;
CREATE INDEX accounts_finishing_in_turn ON accounts (jobs_running, COALESCE(last_claim_at, 0), id)
    WHERE jobs_finishing > 0 AND jobs_queued > 0;

-- The loops that claim a job (`queue/kind.rs`, `Lane`), written by the code that queues it,
-- as its claim rank is: 'model' for model calls, 'render' for everything else. The claim
-- reads this column, so a new kind on either lane changes no SQL. Rows queued before this
-- migration get theirs from their kind's name, once, here.
ALTER TABLE jobs ADD COLUMN lane TEXT NOT NULL DEFAULT 'render';
UPDATE jobs SET lane = 'model' WHERE kind = 'generate';
