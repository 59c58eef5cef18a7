-- The history store's schema version 2 on postgresql, as pytest-ocr after 0.2.0 creates it (kept: a store of version 2
-- is made from it to test the migrations from version 2).

CREATE TABLE item_keys (
    id BIGSERIAL NOT NULL,
    suite VARCHAR(200) NOT NULL,
    key TEXT NOT NULL,
    engine VARCHAR(200),
    PRIMARY KEY (id),
    CONSTRAINT item_keys_key UNIQUE (suite, key)
);

CREATE TABLE meta (
    name VARCHAR(64) NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (name)
);

CREATE TABLE runs (
    id BIGSERIAL NOT NULL,
    suite VARCHAR(200) NOT NULL,
    commit VARCHAR(64),
    branch VARCHAR(255),
    parents VARCHAR(1000),
    commit_time VARCHAR(40),
    attempt INTEGER NOT NULL,
    started_at VARCHAR(40) NOT NULL,
    finished_at VARCHAR(40) NOT NULL,
    duration_s FLOAT NOT NULL,
    status VARCHAR(16) NOT NULL,
    shards INTEGER NOT NULL,
    ci VARCHAR(16),
    job VARCHAR(255),
    run_url VARCHAR(1000),
    pytest_ocr VARCHAR(64) NOT NULL,
    scorers TEXT NOT NULL,
    metric_scorers TEXT,
    summary TEXT NOT NULL,
    recorded_at VARCHAR(40) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT runs_attempt UNIQUE (suite, commit, attempt)
);

CREATE INDEX runs_by_branch ON runs (suite, branch, id);

CREATE INDEX runs_by_commit ON runs (commit);

CREATE TABLE aggregates (
    run_id BIGINT NOT NULL,
    engine VARCHAR(200) NOT NULL,
    scope VARCHAR(255) NOT NULL,
    metric VARCHAR(64) NOT NULL,
    kind VARCHAR(8) NOT NULL,
    value FLOAT,
    low FLOAT,
    high FLOAT,
    n INTEGER NOT NULL,
    PRIMARY KEY (run_id, engine, scope, metric, kind),
    FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE TABLE engines (
    run_id BIGINT NOT NULL,
    engine VARCHAR(200) NOT NULL,
    fingerprint_id VARCHAR(64) NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (run_id, engine),
    FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE TABLE items (
    run_id BIGINT NOT NULL,
    key_id BIGINT NOT NULL,
    outcome SMALLINT NOT NULL,
    output_hash BYTEA,
    input_hash BYTEA,
    cached BOOLEAN NOT NULL,
    values BYTEA NOT NULL,
    repeats BYTEA,
    unstable BOOLEAN,
    counts BYTEA,
    facts TEXT,
    PRIMARY KEY (run_id, key_id),
    FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE,
    FOREIGN KEY(key_id) REFERENCES item_keys (id)
);

CREATE INDEX items_by_key ON items (key_id, run_id);

CREATE TABLE run_metrics (
    run_id BIGINT NOT NULL,
    engine VARCHAR(200) NOT NULL,
    metrics TEXT NOT NULL,
    counts TEXT NOT NULL,
    PRIMARY KEY (run_id, engine),
    FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

INSERT INTO meta (name, value) VALUES ('schema_version', '2');
