-- Threads can be pinned (listed above the others), and titles and messages are searchable (FTS5).
ALTER TABLE threads ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

-- What a search row is: a thread's title (`source` = the thread's id) or the text of one of its
-- messages (`source` = the message's id). An INTEGER PRIMARY KEY keeps the rowid stable (VACUUM may
-- renumber implicit rowids), so the index row can always be found again.
CREATE TABLE search_rows (
    rowid     INTEGER PRIMARY KEY,
    thread_id TEXT NOT NULL,
    source    TEXT NOT NULL UNIQUE
);
CREATE INDEX search_rows_by_thread ON search_rows (thread_id);

-- The words of each search row, under the same rowid.
CREATE VIRTUAL TABLE search_text USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');

-- A message's searchable text: its text blocks (not tool calls or results), the person's and the model's.
CREATE TRIGGER search_message_insert AFTER INSERT ON messages WHEN NEW.role IN ('user', 'assistant') BEGIN
    INSERT INTO search_rows (thread_id, source) VALUES (NEW.thread_id, NEW.id);
    INSERT INTO search_text (rowid, body) VALUES (
        last_insert_rowid(),
        coalesce((SELECT group_concat(json_extract(value, '$.text'), '') FROM json_each(NEW.blocks)
                  WHERE json_extract(value, '$.type') = 'text'), '')
    );
END;
CREATE TRIGGER search_message_delete AFTER DELETE ON messages BEGIN
    DELETE FROM search_text WHERE rowid = (SELECT rowid FROM search_rows WHERE source = OLD.id);
    DELETE FROM search_rows WHERE source = OLD.id;
END;

CREATE TRIGGER search_thread_insert AFTER INSERT ON threads BEGIN
    INSERT INTO search_rows (thread_id, source) VALUES (NEW.id, NEW.id);
    INSERT INTO search_text (rowid, body) VALUES (last_insert_rowid(), NEW.title);
END;
CREATE TRIGGER search_thread_title AFTER UPDATE OF title ON threads WHEN NEW.title IS NOT OLD.title BEGIN
    DELETE FROM search_text WHERE rowid = (SELECT rowid FROM search_rows WHERE source = OLD.id);
    INSERT INTO search_text (rowid, body) VALUES ((SELECT rowid FROM search_rows WHERE source = OLD.id), NEW.title);
END;
-- Its messages' rows go with them (the cascade fires their trigger); this takes the title's and any left.
CREATE TRIGGER search_thread_delete AFTER DELETE ON threads BEGIN
    DELETE FROM search_text WHERE rowid IN (SELECT rowid FROM search_rows WHERE thread_id = OLD.id);
    DELETE FROM search_rows WHERE thread_id = OLD.id;
END;

-- What is already there.
INSERT INTO search_rows (thread_id, source) SELECT id, id FROM threads;
INSERT INTO search_text (rowid, body)
    SELECT r.rowid, t.title FROM search_rows r JOIN threads t ON t.id = r.source;
INSERT INTO search_rows (thread_id, source)
    SELECT thread_id, id FROM messages WHERE role IN ('user', 'assistant');
INSERT INTO search_text (rowid, body)
    SELECT r.rowid, coalesce((SELECT group_concat(json_extract(value, '$.text'), '') FROM json_each(m.blocks)
                              WHERE json_extract(value, '$.type') = 'text'), '')
    FROM search_rows r JOIN messages m ON m.id = r.source;
