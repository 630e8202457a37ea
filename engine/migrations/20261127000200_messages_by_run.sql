-- A run's latest message, which the driver reads at every step and every decision, by index: without it
-- each read scanned every message of every thread (`warden-bench approvals` with 50,000 messages of
-- earlier threads: decision -> result p50 10.9 ms instead of 5). Messages of no run (imported ones) are
-- left out of it.
CREATE INDEX messages_by_run ON messages (run_id, position) WHERE run_id IS NOT NULL;
