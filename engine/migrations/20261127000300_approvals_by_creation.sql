-- `GET /api/approvals` without a status (newest first, a page of them) sorted every approval ever made;
-- with this index it reads the page's rows in order.
CREATE INDEX approvals_by_creation ON approvals (created_at DESC, id DESC);
