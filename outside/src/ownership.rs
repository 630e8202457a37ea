//! Who may see and revoke an outside client: the person who registered it, and owners.

use warden_types::id::PersonId;
use warden_types::person::Role;

use crate::record::Client;

/// A person managing outside clients, with the role that says how far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manager {
    pub person: PersonId,
    pub role: Role,
}

impl Manager {
    /// Whether this person may see and revoke `client`: an owner every client, anyone else their own.
    pub fn manages(&self, client: &Client) -> bool {
        self.role.manages() || client.created_by.as_ref() == Some(&self.person)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ClientPolicy;

    fn client_of(owner: Option<&str>) -> Client {
        Client {
            id: "c1".into(),
            name: "runner".into(),
            policy: ClientPolicy::default(),
            created_at: "2026-11-28T00:00:00Z".into(),
            revoked_at: None,
            created_by: owner.map(PersonId::from),
        }
    }

    #[test]
    fn an_owner_manages_every_client_anyone_else_only_their_own() {
        let ada = Manager { person: "ada".into(), role: Role::Member };
        let owner = Manager { person: "olga".into(), role: Role::Owner };
        assert!(ada.manages(&client_of(Some("ada"))));
        assert!(!ada.manages(&client_of(Some("bob"))));
        assert!(!ada.manages(&client_of(None)));
        for client in [client_of(Some("ada")), client_of(Some("bob")), client_of(None)] {
            assert!(owner.manages(&client));
        }
        let approver = Manager { person: "ada".into(), role: Role::Approver };
        assert!(!approver.manages(&client_of(Some("bob"))));
    }
}
