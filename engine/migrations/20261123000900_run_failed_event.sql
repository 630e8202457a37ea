-- The run event `error` is called `run_failed` now (EventSource has an `error` event of its own):
-- logs written before keep replaying.
UPDATE run_events SET kind = 'run_failed' WHERE kind = 'error';
