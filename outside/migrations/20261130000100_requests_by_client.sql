-- A client's requests by status, newest first: its pending count (the per-client bound) and the inbox's
-- newest requests of each client (so that one client's flood hides no other's).
CREATE INDEX outside_requests_by_client ON outside_requests (client_id, status, created_at DESC);
