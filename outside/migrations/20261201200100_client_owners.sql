-- Outside clients belong to the person who registered them: their requests are "asked by" that person
-- (for routing and for no-self-approval). NULL: registered before Warden knew people; adopted by the
-- founding owner at start (`Store::adopt_unowned_clients`).
ALTER TABLE outside_clients ADD COLUMN created_by TEXT;
CREATE INDEX outside_clients_by_owner ON outside_clients (created_by, created_at);
