-- A security evaluation that names one of Warden's own tool calls (`warden_call_id`, kept in the
-- payload as sent) while that call runs belongs to it: it shows on the call's card in its thread and
-- counts with that thread, not as an inbox item of its own. NULL for every other request (one that
-- named no call, or a call that was not running). No foreign key: the calls are the engine's table.
ALTER TABLE outside_requests ADD COLUMN linked_call_id TEXT;
ALTER TABLE outside_requests ADD COLUMN linked_thread_id TEXT;
CREATE INDEX outside_requests_by_linked_thread ON outside_requests (linked_thread_id, status)
    WHERE linked_thread_id IS NOT NULL;
