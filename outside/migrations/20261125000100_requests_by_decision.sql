-- The audit log pages through decided requests, newest decision first.
CREATE INDEX outside_requests_by_decision ON outside_requests (decided_at DESC, id DESC) WHERE decided_at IS NOT NULL;
