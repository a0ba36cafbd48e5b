//! Numbered migrations, keyed on `PRAGMA user_version`.
//!
//! Migration N moves a store from version N-1 to N inside one transaction. A store whose
//! version is above the last migration was written by a newer slm and is refused unchanged.

/// The migrations, in order. Never edit a shipped one: add the next.
pub const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    r#"
    CREATE TABLE memories (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        text            TEXT    NOT NULL,
        kind            TEXT    NOT NULL,
        source          TEXT    NOT NULL,
        profile         TEXT    NOT NULL,
        scope           TEXT    NOT NULL,
        session_id      TEXT,
        speaker         TEXT,
        created_at      INTEGER NOT NULL,
        event_at        INTEGER NOT NULL,
        valid_from      INTEGER,
        valid_until     INTEGER,
        known_at        INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL,
        pinned          INTEGER NOT NULL DEFAULT 0,
        bookkeeping     TEXT,
        superseded_by   INTEGER REFERENCES memories(id) ON DELETE SET NULL,
        confidence      REAL    NOT NULL DEFAULT 1.0,
        trust           REAL    NOT NULL DEFAULT 1.0,
        idempotency_key TEXT UNIQUE,
        baseline_sim    REAL,
        baseline_n      INTEGER,
        embedding       BLOB,
        embedding_model TEXT,
        embedding_dim   INTEGER
    );
    CREATE INDEX memories_profile_event ON memories(profile, event_at);
    CREATE INDEX memories_session ON memories(session_id);
    CREATE INDEX memories_pending_embedding ON memories(id) WHERE embedding IS NULL;

    CREATE TABLE tags (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        tag       TEXT    NOT NULL,
        PRIMARY KEY (memory_id, tag)
    ) WITHOUT ROWID;

    CREATE TABLE entities (
        id      INTEGER PRIMARY KEY,
        kind    TEXT NOT NULL,
        norm    TEXT NOT NULL,
        surface TEXT NOT NULL,
        UNIQUE (kind, norm)
    );
    CREATE TABLE memory_entities (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        PRIMARY KEY (memory_id, entity_id)
    ) WITHOUT ROWID;
    CREATE INDEX memory_entities_entity ON memory_entities(entity_id, memory_id);

    -- Graph edges between memories: `next` (the following memory of the same session),
    -- `supersedes` (a correction), and user links.
    CREATE TABLE links (
        src    INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        dst    INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        kind   TEXT    NOT NULL,
        weight REAL    NOT NULL DEFAULT 1.0,
        PRIMARY KEY (src, dst, kind)
    ) WITHOUT ROWID;
    CREATE INDEX links_dst ON links(dst, src);

    -- Every write appends here; each derived index remembers the last seq it applied,
    -- which is how a stale index is detected and caught up. `embed` changes only the
    -- embedding, so the keyword index skips it.
    CREATE TABLE changes (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        op        TEXT    NOT NULL CHECK (op IN ('upsert', 'delete', 'embed'))
    );

    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    "#,
    // 2: idempotency keys are per profile (one profile's key must never answer for another's
    // write), and the store gets an identity that the derived indexes are stamped with.
    // `memories.idempotency_key` stays in the table (SQLite cannot drop its UNIQUE index
    // without a rebuild) but is no longer written or read.
    r#"
    CREATE TABLE idempotency_keys (
        profile   TEXT    NOT NULL,
        key       TEXT    NOT NULL,
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        PRIMARY KEY (profile, key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_keys_memory ON idempotency_keys(memory_id);
    INSERT INTO idempotency_keys(profile, key, memory_id)
        SELECT profile, idempotency_key, id FROM memories WHERE idempotency_key IS NOT NULL;
    UPDATE memories SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL;
    INSERT OR IGNORE INTO meta(key, value) VALUES ('store_id', lower(hex(randomblob(16))));
    "#,
    // 3: where a memory came from, when it came from a file (`path:line` for an imported
    // notes file), so a re-import can tell a changed paragraph from a new one and a person
    // can find the original.
    r#"
    ALTER TABLE memories ADD COLUMN origin TEXT;
    "#,
    // 4: feedback for the learned ranking modes (issue 15), all per profile and never sent
    // anywhere. `recall_log` keeps what a recall ranked (ids, positions, features) so a
    // later `slm feedback` can name it; `feedback` holds the good/bad marks; `ranking_models`
    // the learned state per profile and mode, versioned. Nothing here turns a mode on: that
    // is `SLM_RANKING`, read per request.
    r#"
    CREATE TABLE recall_log (
        recall_id   TEXT    PRIMARY KEY,
        profile     TEXT    NOT NULL,
        at          INTEGER NOT NULL,
        query       TEXT    NOT NULL,
        query_class TEXT    NOT NULL,
        body        TEXT    NOT NULL
    );
    CREATE INDEX recall_log_profile_at ON recall_log(profile, at);
    CREATE TABLE feedback (
        id        INTEGER PRIMARY KEY,
        profile   TEXT    NOT NULL,
        recall_id TEXT    NOT NULL REFERENCES recall_log(recall_id) ON DELETE CASCADE,
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        label     TEXT    NOT NULL CHECK (label IN ('good', 'bad')),
        source    TEXT    NOT NULL CHECK (source IN ('explicit', 'implicit')),
        at        INTEGER NOT NULL,
        UNIQUE (recall_id, memory_id, source)
    );
    CREATE INDEX feedback_profile_at ON feedback(profile, at);
    CREATE INDEX feedback_memory ON feedback(memory_id);
    CREATE TABLE ranking_models (
        profile         TEXT    NOT NULL,
        mode            TEXT    NOT NULL,
        version         INTEGER NOT NULL,
        feature_version INTEGER NOT NULL,
        trained_on      INTEGER NOT NULL,
        body            TEXT    NOT NULL,
        updated_at      INTEGER NOT NULL,
        PRIMARY KEY (profile, mode)
    ) WITHOUT ROWID;
    "#,
    // 5: indexes that keep the background checks of a large store off full scans (issue
    // "Recall at a million memories"). Which memories still need an embedding by the loaded
    // model, and which baselines are stale, were answered by reading every row (with its
    // 3 KB vector): 1.4 s at a million memories, every few seconds in an idle worker.
    r#"
    CREATE INDEX memories_embedding_model ON memories(embedding_model);
    CREATE INDEX memories_baseline_n ON memories(baseline_n);
    "#,
    // 6: passages (`text::passages`): the vectors of a memory's sentences, beside its own,
    // one row per memory that has more than one passage (int8, see `store::embeddings`).
    // `passages_model` says which model embedded them (NULL: not yet; a memory of one passage
    // has the model and no row). Found waiting through `memories_pending_passages`, so a
    // store upgraded from 5 gets them in the background without a full scan per check.
    r#"
    ALTER TABLE memories ADD COLUMN passages_model TEXT;
    CREATE TABLE passages (
        memory_id INTEGER PRIMARY KEY,
        vectors   BLOB NOT NULL
    );
    CREATE INDEX memories_pending_passages ON memories(id) WHERE passages_model IS NULL;
    CREATE TRIGGER passages_follow_memories AFTER DELETE ON memories BEGIN
        DELETE FROM passages WHERE memory_id = old.id;
    END;
    "#,
    // 7: context passages (`text::passages_in_context`): a memory's passages include the
    // memory before it in its session, so a new text or the removal of that memory sends the
    // one after it back to wait (BEFORE DELETE: the `next` link goes with the row). Memories
    // that have one before them wait once, to get theirs.
    r#"
    CREATE TRIGGER passages_follow_context_text AFTER UPDATE OF text ON memories BEGIN
        DELETE FROM passages WHERE memory_id IN
            (SELECT dst FROM links WHERE src = new.id AND kind = 'next');
        UPDATE memories SET passages_model = NULL WHERE id IN
            (SELECT dst FROM links WHERE src = new.id AND kind = 'next');
    END;
    CREATE TRIGGER passages_follow_context_delete BEFORE DELETE ON memories BEGIN
        DELETE FROM passages WHERE memory_id IN
            (SELECT dst FROM links WHERE src = old.id AND kind = 'next');
        UPDATE memories SET passages_model = NULL WHERE id IN
            (SELECT dst FROM links WHERE src = old.id AND kind = 'next');
    END;
    UPDATE memories SET passages_model = NULL
        WHERE id IN (SELECT dst FROM links WHERE kind = 'next');
    "#,
    // 8: duplicates (issue 35): saving a text already stored acknowledges the memory that
    // holds it. `dedup_hash` is `text::dedup_hash` of the text (whitespace collapsed, case
    // folded), filled for the rows already there by `backfill` below; `seen_count` and
    // `last_seen_at` record each save of the same text that stored nothing new.
    r#"
    ALTER TABLE memories ADD COLUMN dedup_hash INTEGER;
    ALTER TABLE memories ADD COLUMN seen_count INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE memories ADD COLUMN last_seen_at INTEGER;
    CREATE INDEX memories_dedup ON memories(profile, dedup_hash);
    "#,
    // 9: per-project memory (issue 35): the project a memory was written in (`project`),
    // NULL for every memory saved before (visible from every project).
    r#"
    ALTER TABLE memories ADD COLUMN project TEXT;
    CREATE INDEX memories_project ON memories(profile, project);
    "#,
    // 10: the dashboard's saved views (issue 36): a named question with its filters, per
    // profile. `filters` is the JSON of `store::views::ViewFilters`.
    r#"
    CREATE TABLE views (
        profile TEXT NOT NULL,
        name TEXT NOT NULL,
        query TEXT NOT NULL,
        filters TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (profile, name)
    );
    "#,
    // 11: pictures (issue 37, `media`): the file a picture memory keeps (content-addressed
    // under the data dir), the user's note, and what OCR read. `ocr_state` is `pending` until
    // the worker's background queue reads it, then `read`, `wordless` (no line at the
    // confidence floor) or `failed` (`ocr_note` says why). The row goes with its memory.
    r#"
    CREATE TABLE pictures (
        memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
        sha256    TEXT    NOT NULL,
        ext       TEXT    NOT NULL,
        name      TEXT    NOT NULL,
        note      TEXT,
        bytes     INTEGER NOT NULL,
        width     INTEGER NOT NULL,
        height    INTEGER NOT NULL,
        page      INTEGER,
        ocr_state TEXT    NOT NULL DEFAULT 'pending',
        ocr_lines TEXT,
        ocr_note  TEXT
    );
    CREATE INDEX pictures_sha ON pictures(sha256);
    CREATE INDEX pictures_pending ON pictures(memory_id) WHERE ocr_state = 'pending';
    "#,
    // 12: a picture's vector from a bring-your-own image–text model (`media::clip`), named by
    // the model that made it (`vector_model`), so a replaced model's vectors are made again
    // instead of being scored against another model's questions.
    r#"
    ALTER TABLE pictures ADD COLUMN vector_model TEXT;
    ALTER TABLE pictures ADD COLUMN vector BLOB;
    "#,
];

/// What a migration needs that SQL cannot do, run in its transaction after its SQL:
/// `version` is the version the store is moving to.
pub fn backfill(version: i64, tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    if version == 8 {
        // In pages of ids, so a large store is never held in memory at once.
        let mut read =
            tx.prepare("SELECT id, text FROM memories WHERE id > ?1 ORDER BY id LIMIT 10000")?;
        let mut write = tx.prepare("UPDATE memories SET dedup_hash = ?2 WHERE id = ?1")?;
        let mut after = i64::MIN;
        loop {
            let rows: Vec<(i64, String)> = read
                .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let Some(last) = rows.last() else { break };
            after = last.0;
            for (id, text) in &rows {
                write.execute(rusqlite::params![id, crate::text::dedup_hash(text)])?;
            }
        }
    }
    Ok(())
}

/// The schema version this slm writes.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}
