-- Tokens of remote workers (`pitboss worker --token`; issue #25), kept in the database rather
-- than in a file of the data folder: a server on PostgreSQL keeps them when it loses its machine,
-- and `pitboss token worker … --database URL` reaches them. Only the SHA-256 of each token is
-- stored; revoking one deletes its row (its name may then be given to a new token).
CREATE TABLE worker_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
