//! The people who use one Warden, as the pages and the API show them: who they are and what their role lets
//! them do. Passwords, passkeys and invitation secrets never leave the server; nothing here carries them.

use serde::{Deserialize, Serialize};

use crate::id::{InvitationId, PersonId};

/// What a person may do. One role per person; the owner gives and changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum Role {
    /// Everything, including people, roles and approval policies.
    Owner,
    /// Decides what the policies route to them; reads the threads and requests they decide on; chats.
    Approver,
    /// Chats; the cards of their runs go to the approvers a policy names, never to themselves.
    Member,
    /// Reads what is shared with them; decides nothing, starts nothing.
    Viewer,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Approver, Role::Member, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether this role may decide an approval routed to it.
    pub fn decides(self) -> bool {
        matches!(self, Role::Owner | Role::Approver)
    }

    /// Whether this role may start threads and runs.
    pub fn chats(self) -> bool {
        !matches!(self, Role::Viewer)
    }

    /// Whether this role may manage people, invitations and policies.
    pub fn manages(self) -> bool {
        matches!(self, Role::Owner)
    }

    /// How the pages name it.
    pub fn label(self) -> &'static str {
        match self {
            Role::Owner => "Owner",
            Role::Approver => "Approver",
            Role::Member => "Member",
            Role::Viewer => "Viewer",
        }
    }
}

/// The person a thread is read (or written) for: who they are and their role. The engine's thread entry
/// points take one (`Engine::as_reader`) and answer only what this person may read; see
/// `warden_engine::access` for the rule. [`ActingPerson::reader`] makes one of a person as a run or a vote
/// names them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reader {
    pub person: PersonId,
    pub role: Role,
}

impl Reader {
    pub fn new(person: PersonId, role: Role) -> Self {
        Self { person, role }
    }
}

/// Someone a thread can be shared with, as the Share dialog lists them: everyone who chats may read these
/// (names and ids only; logins and roles are the owner's to see).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonName {
    pub id: PersonId,
    pub name: String,
}

/// A person, as Settings → People lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Person {
    pub id: PersonId,
    /// What they sign in with (unique, compared without case).
    pub login: String,
    /// How the app names them (in the inbox, the audit log, "asked by").
    pub name: String,
    pub role: Role,
    /// Whether a password is set.
    pub has_password: bool,
    /// How many passkeys they sign in with.
    #[serde(default)]
    pub passkeys: u32,
    /// Whether the identity provider (OpenID Connect) signs them in: an identity of theirs is linked.
    #[serde(default)]
    pub has_oidc: bool,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// Set when the owner disabled the account: its sessions ended then, and it cannot sign in.
    pub disabled_at: Option<String>,
}

impl Person {
    /// The person as a run or a vote records them, with the name and role they have now.
    pub fn acting(&self) -> ActingPerson {
        ActingPerson { id: self.id.clone(), name: self.name.clone(), role: self.role }
    }
}

/// An invitation not yet used, as the owner sees it (never its secret: that is only in the link shown once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Invitation {
    pub id: InvitationId,
    pub role: Role,
    /// The name the owner suggested; the invitee may change it.
    pub name: Option<String>,
    /// Who invited.
    pub created_by: PersonId,
    pub created_at: String,
    pub expires_at: String,
}

/// A person as an approval names them: who asked for a run, who voted on a card. Their role is the one
/// they had then (a later change of role does not rewrite who decided what).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActingPerson {
    pub id: PersonId,
    pub name: String,
    pub role: Role,
}

impl ActingPerson {
    /// The same person as a thread is read for: who they are and their role, without the name.
    pub fn reader(&self) -> Reader {
        Reader::new(self.id.clone(), self.role)
    }
}

/// A passkey of the person asking, as Settings lists it (never its key: that stays on the server).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct PasskeyInfo {
    /// The credential's id in hex (how the passkey is removed).
    pub id: String,
    /// What its owner called it.
    pub name: String,
    pub created_at: String,
    /// When it last signed someone in.
    pub last_used_at: Option<String>,
}

/// Someone the identity provider signed in for the first time with no role Warden knows: no access until an
/// owner lets them in with a role (Settings → People).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct WaitingPerson {
    pub id: String,
    /// The provider that vouches for them.
    pub issuer: String,
    pub name: String,
    /// The login they will have.
    pub login: String,
    pub email: Option<String>,
    pub first_seen_at: String,
    pub last_seen_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_acts_and_reads_as_the_same_one_with_the_same_role() {
        let person = Person {
            id: PersonId::from("ada"),
            login: "ada".into(),
            name: "Ada".into(),
            role: Role::Approver,
            has_password: true,
            passkeys: 0,
            has_oidc: false,
            created_at: "2026-01-01T00:00:00Z".into(),
            disabled_at: None,
        };
        let acting = person.acting();
        assert_eq!((acting.id.as_str(), acting.name.as_str(), acting.role), ("ada", "Ada", Role::Approver));
        assert_eq!(acting.reader(), Reader::new(PersonId::from("ada"), Role::Approver));
    }
}
