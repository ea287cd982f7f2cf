-- Nothing to change on SQLite: PostgreSQL's 0006 (claims by account) has no SQLite
-- counterpart, since SQLite keeps its single-statement claim. This file keeps the two
-- backends' migration numbers the same, so a migration N means the same change on both.
SELECT 1;
