-- The requests still waiting on one of Warden's calls, by call: when a call ends, the hub looks up only that
-- call's waiting requests (`calls_ended`), and at start all of them, without reading the decided history.
CREATE INDEX outside_requests_pending_by_linked_call ON outside_requests (linked_call_id)
    WHERE linked_call_id IS NOT NULL AND status = 'pending';
