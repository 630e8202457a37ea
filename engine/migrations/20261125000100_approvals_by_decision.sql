-- The audit log pages through decided approvals, newest decision first.
CREATE INDEX approvals_by_decision ON approvals (decided_at DESC, id DESC) WHERE decided_at IS NOT NULL;
