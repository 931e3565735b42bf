-- The service's tables (issue #24). Times are Unix milliseconds; ids are assigned by the database.
CREATE TABLE tokens (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL UNIQUE,          -- SHA-256 of the token, hex: the token itself is never stored
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    uploads_per_hour BIGINT NOT NULL,
    max_bundle_bytes BIGINT NOT NULL
);
CREATE TABLE bots (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    owner BIGINT REFERENCES tokens(id),  -- NULL: a reference bot of the house
    created_at BIGINT NOT NULL
);
CREATE TABLE versions (
    id BIGSERIAL PRIMARY KEY,
    bot BIGINT NOT NULL REFERENCES bots(id),
    number BIGINT NOT NULL,
    spec TEXT NOT NULL,                  -- a built-in bot's name, or '' for an uploaded bundle
    sha256 TEXT NOT NULL,                -- the bundle's SHA-256 ('' for a built-in bot)
    bundle_bytes BIGINT NOT NULL,
    state TEXT NOT NULL,                 -- pending, checking, active, failed, retired
    log TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    checked_at BIGINT,
    UNIQUE (bot, number)
);
CREATE INDEX versions_state ON versions(state);
CREATE TABLE uploads (
    token BIGINT NOT NULL REFERENCES tokens(id),
    at BIGINT NOT NULL,
    bytes BIGINT NOT NULL
);
CREATE INDEX uploads_token_at ON uploads(token, at);
CREATE TABLE matches (
    id BIGSERIAL PRIMARY KEY,
    preset TEXT NOT NULL,
    kind TEXT NOT NULL,                  -- ladder, predecessor
    a BIGINT NOT NULL REFERENCES versions(id),
    b BIGINT NOT NULL REFERENCES versions(id),
    seed BIGINT NOT NULL,
    hands BIGINT NOT NULL,
    state TEXT NOT NULL,                 -- queued, running, done, failed
    attempts BIGINT NOT NULL DEFAULT 0,
    worker TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT,
    error TEXT NOT NULL DEFAULT '',
    -- The result (state done): a's luck-adjusted mean per duplicate unit in mbb/hand and its
    -- standard error, the raw mean, hands and units played, and both bots' statistics (JSON).
    units BIGINT NOT NULL DEFAULT 0,
    played BIGINT NOT NULL DEFAULT 0,
    mean DOUBLE PRECISION NOT NULL DEFAULT 0,
    se DOUBLE PRECISION NOT NULL DEFAULT 0,
    raw_mean DOUBLE PRECISION NOT NULL DEFAULT 0,
    elapsed_ms BIGINT NOT NULL DEFAULT 0,
    a_stats TEXT NOT NULL DEFAULT '',
    b_stats TEXT NOT NULL DEFAULT '',
    history TEXT NOT NULL DEFAULT ''     -- the PHH file beneath the data folder ('' when none)
);
CREATE INDEX matches_state ON matches(state);
CREATE INDEX matches_a ON matches(a);
CREATE INDEX matches_b ON matches(b);
