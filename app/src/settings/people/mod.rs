//! Settings' "People" (owners: everyone, their roles, invitations) and "Your account" (everyone: who
//! they are, their password, their passkeys).

pub mod account;
pub mod invite;
pub mod passkeys;
pub mod section;
pub mod waiting;

/// The People section's state, handed down as a prop (see `signed_in_browsers`: the sections beside this
/// one share its owner).
pub type PeopleUi = crate::settings::section_ui::SectionUi<()>;
