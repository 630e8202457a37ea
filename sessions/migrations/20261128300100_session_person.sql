-- Whose session it is (warden-people's `people.id`). Sessions started before people existed were all the
-- founding owner's: the server gives them to the owner at start (`Sessions::adopt_unowned`).
ALTER TABLE browser_sessions ADD COLUMN person_id TEXT;
CREATE INDEX browser_sessions_by_person ON browser_sessions (person_id);
