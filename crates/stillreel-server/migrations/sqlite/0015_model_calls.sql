-- Claims on model calls, SQLite dialect. Keep in step with ../postgres/0015_model_calls.sql.

-- One model call per input: a job about to call a model role for an input nobody has stored
-- yet claims the input's result-cache key here; jobs that find it claimed wait for the
-- answer in storage. A claim lapses at expires_at (ms since the epoch: the role's time limit
-- and a margin), so a holder killed mid-call is taken over. Released claims are deleted.
CREATE TABLE model_calls (
    cache_key  TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
