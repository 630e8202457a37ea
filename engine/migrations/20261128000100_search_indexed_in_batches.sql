-- A message's words go into the search index in batches (`Store::index_pending`), not in the write that
-- stores the message: each write to the FTS5 table makes a segment of its own for SQLite to merge later,
-- which cost every run about a fifth of its server CPU (`warden-bench streams`). A message waits here
-- until then; a search first indexes what waits, so it still finds every message stored before it.
CREATE TABLE search_pending (row INTEGER PRIMARY KEY);

DROP TRIGGER search_message_insert;
CREATE TRIGGER search_message_insert AFTER INSERT ON messages WHEN NEW.role IN ('user', 'assistant') BEGIN
    INSERT INTO search_rows (thread_id, source) VALUES (NEW.thread_id, NEW.id);
    -- OR IGNORE: a number left waiting by a row deleted some other way never fails a message's write
    -- (the index is written from the rows as they are then, and skips a number whose message is gone).
    INSERT OR IGNORE INTO search_pending (row) VALUES (last_insert_rowid());
END;

DROP TRIGGER search_message_delete;
CREATE TRIGGER search_message_delete AFTER DELETE ON messages BEGIN
    DELETE FROM search_pending WHERE row = (SELECT rowid FROM search_rows WHERE source = OLD.id);
    DELETE FROM search_text WHERE rowid = (SELECT rowid FROM search_rows WHERE source = OLD.id);
    DELETE FROM search_rows WHERE source = OLD.id;
END;

DROP TRIGGER search_thread_delete;
CREATE TRIGGER search_thread_delete AFTER DELETE ON threads BEGIN
    DELETE FROM search_pending WHERE row IN (SELECT rowid FROM search_rows WHERE thread_id = OLD.id);
    DELETE FROM search_text WHERE rowid IN (SELECT rowid FROM search_rows WHERE thread_id = OLD.id);
    DELETE FROM search_rows WHERE thread_id = OLD.id;
END;
