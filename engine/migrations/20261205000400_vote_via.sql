-- Where a vote was cast when not in the app (`link`: a decision link's confirm page); NULL in the app.
ALTER TABLE approval_votes ADD COLUMN via TEXT;
