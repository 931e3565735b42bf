-- Results refused by the audit (issue #25): which worker sent each, for which match, and why.
-- A flag is a note for the operator; the match itself is failed with the same reason.
CREATE TABLE worker_flags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    worker TEXT NOT NULL,
    match_id BIGINT NOT NULL REFERENCES matches(id),
    reason TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX worker_flags_worker ON worker_flags(worker);
