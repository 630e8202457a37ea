-- Who asked for a run, and who decides its approvals.
-- The person whose message started the run (or retried, edited, regenerated): their id, and their name and
-- role then (JSON `warden_types::person::ActingPerson`). NULL: a run from before people were recorded, the
-- founding owner's.
ALTER TABLE runs ADD COLUMN requested_by TEXT;
ALTER TABLE runs ADD COLUMN requester TEXT;

-- The approval's route, copied from the policy that matched when the card was made (JSON
-- `warden_types::policy::ApprovalRoute`): a later edit of the policy does not change a waiting card. NULL for
-- approvals from before routing (any owner or approver decides alone). With a quorum, an approver's edit
-- replaces `approvals.arguments` (what the card shows and the votes are on); the tool call keeps the model's
-- until the approval is settled.
ALTER TABLE approvals ADD COLUMN route TEXT;

-- One vote per person per approval, on the arguments shown when they voted. An edit deletes the others'.
CREATE TABLE approval_votes (
    seq         INTEGER PRIMARY KEY,
    approval_id TEXT NOT NULL REFERENCES approvals (id) ON DELETE CASCADE,
    person_id   TEXT NOT NULL,
    -- JSON `ActingPerson`: their name and role when they voted
    person      TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('approve', 'deny')),
    arguments   TEXT NOT NULL,
    at          TEXT NOT NULL,
    UNIQUE (approval_id, person_id)
);
CREATE INDEX approval_votes_in_order ON approval_votes (approval_id, seq);
