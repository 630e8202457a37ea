-- Branches: each message follows a parent (the message before it on its branch; NULL for a first
-- message), and a thread shows the branch that ends at its head. Editing a person's message or asking
-- for another answer adds a sibling; the head says which branch is chosen.
ALTER TABLE messages ADD COLUMN parent_id TEXT;
ALTER TABLE threads ADD COLUMN head_id TEXT;

-- What is there is one branch: each message follows the one before it.
UPDATE messages SET parent_id = (
    SELECT p.id FROM messages p
    WHERE p.thread_id = messages.thread_id AND p.position < messages.position
    ORDER BY p.position DESC LIMIT 1
);
UPDATE threads SET head_id = (
    SELECT m.id FROM messages m WHERE m.thread_id = threads.id ORDER BY m.position DESC LIMIT 1
);
CREATE INDEX messages_by_parent ON messages (thread_id, parent_id);
