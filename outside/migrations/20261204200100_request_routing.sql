-- Outside requests are routed by the approval policies as chat approvals are (issue 39).
-- `route`: the route copied from the policy that matched when the request arrived (JSON
-- `warden_types::policy::ApprovalRoute`, the client's owner as the requester); NULL for requests from before
-- routing and those a client policy decided on arrival (any owner or approver decides alone).
-- `votes`: the people who voted, in order (JSON array of `warden_types::policy::Vote`), on `shown_code`.
-- `shown_code`: an approver's edit of the code while a quorum counts (NULL: the client's code is shown); an
-- edit empties `votes`, so nobody's approval counts for code they were not shown.
-- `revision`: bumped by every vote, so a vote is written only on the votes it counted (compare-and-set).
ALTER TABLE outside_requests ADD COLUMN route TEXT;
ALTER TABLE outside_requests ADD COLUMN votes TEXT NOT NULL DEFAULT '[]';
ALTER TABLE outside_requests ADD COLUMN shown_code TEXT;
ALTER TABLE outside_requests ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
