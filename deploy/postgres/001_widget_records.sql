-- WidgetBus sync target: the records widgets produce, pushed by sync-agent.
--
-- sync-agent runs exactly these statements at start (they are idempotent), on PostgreSQL
-- (Supabase included) and on its embedded SQLite default alike. To prepare a Supabase
-- project by hand, run this file in the SQL editor or with psql. sync-agent connects as a
-- role that may write these tables; if the project exposes them through its API, enable
-- row level security and add policies as for any other table.
--
-- Rows are keyed by the record id. `revision` is intent-handler's revision of the record:
-- sync-agent's upsert never replaces a row with an older revision, so a late or repeated
-- pass cannot undo a newer one. `synced_at` is when the row was last written.

CREATE TABLE IF NOT EXISTS stress_check_ins (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    tension_level INTEGER NOT NULL,
    suggested_intervention_id TEXT,
    intervention_completed BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX IF NOT EXISTS stress_check_ins_user_id ON stress_check_ins (user_id);

CREATE TABLE IF NOT EXISTS food_logs (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    food_id TEXT NOT NULL,
    name TEXT NOT NULL,
    quantity DOUBLE PRECISION NOT NULL,
    unit TEXT NOT NULL,
    calories DOUBLE PRECISION NOT NULL,
    protein DOUBLE PRECISION NOT NULL,
    carbs DOUBLE PRECISION NOT NULL,
    fat DOUBLE PRECISION NOT NULL,
    day_key TEXT NOT NULL,
    logged_at TIMESTAMPTZ NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX IF NOT EXISTS food_logs_user_id ON food_logs (user_id);

CREATE TABLE IF NOT EXISTS drink_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    completed_at TIMESTAMPTZ NOT NULL,
    elapsed_seconds INTEGER NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX IF NOT EXISTS drink_sessions_user_id ON drink_sessions (user_id);
