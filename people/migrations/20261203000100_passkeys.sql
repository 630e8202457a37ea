-- Passkeys (WebAuthn credentials). A person may have several; a credential belongs to one person. The
-- WebAuthn user handle is the person's id (a UUID) as 16 bytes, so a discoverable sign-in names its person.
CREATE TABLE passkeys (
    -- the credential's id as the authenticator made it, in hex
    id           TEXT PRIMARY KEY,
    person_id    TEXT NOT NULL REFERENCES people(id),
    -- what the person called it, shown in Settings
    name         TEXT NOT NULL,
    -- webauthn-rs's `Passkey` as JSON: the public key, the signature counter, the backup state
    credential   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT
);
CREATE INDEX passkeys_by_person ON passkeys (person_id);
