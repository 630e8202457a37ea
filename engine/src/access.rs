//! Who may read and who may write a thread. A thread belongs to the person who started (or imported)
//! it and is private until they share it with named people or with everyone; sharing lets others
//! read, never write. Owners by role read every thread and may delete one or stop its run, but write
//! only to their own. A thread a person may not read does not exist for them (not found, so that ids
//! tell nothing); one they read but may not change is forbidden.

use warden_types::id::PersonId;
use warden_types::person::{Reader, Role};

use crate::error::{Error, Result};
use crate::store::ThreadFacts;

/// What a person may do with one thread, each level including the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThreadAccess {
    /// Read it, its runs, calls, approvals and rules, and export it.
    Read,
    /// Also delete it and stop its run (owners by role, on anyone's thread).
    Moderate,
    /// Everything: it is theirs.
    Own,
}

/// Whether `reader` reads every thread (owners do).
pub fn reads_everything(reader: &Reader) -> bool {
    reader.role == Role::Owner
}

/// Whether `reader` may delete a thread owned by `owner` and stop its runs ([`ThreadAccess::Moderate`] or
/// more): their own, or anyone's for an owner by role.
pub fn moderates(reader: &Reader, owner: Option<&PersonId>) -> bool {
    owner == Some(&reader.person) || reads_everything(reader)
}

/// What `reader` may do with a thread of `facts` (`routed`: an approval of it is routed to them);
/// `None`: nothing, not even know it is there.
pub fn access_to(reader: &Reader, facts: &ThreadFacts, routed: bool) -> Option<ThreadAccess> {
    if facts.owner.as_ref() == Some(&reader.person) {
        return Some(ThreadAccess::Own);
    }
    if reads_everything(reader) {
        return Some(ThreadAccess::Moderate);
    }
    (facts.shared || routed).then_some(ThreadAccess::Read)
}

/// `Ok` if `had` reaches `needed`; otherwise the refusal for thread `id`: not found if the person may
/// not read it at all, forbidden if they may read but not do this.
pub fn require(had: Option<ThreadAccess>, needed: ThreadAccess, id: &str) -> Result<ThreadAccess> {
    match had {
        Some(access) if access >= needed => Ok(access),
        Some(_) => Err(Error::NotThreadOwner),
        None => Err(Error::not_found("thread", id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_types::id::PersonId;

    fn facts(owner: Option<&str>, shared: bool) -> ThreadFacts {
        ThreadFacts { owner: owner.map(PersonId::from), shared }
    }

    fn reader(id: &str, role: Role) -> Reader {
        Reader::new(PersonId::from(id), role)
    }

    #[test]
    fn a_thread_is_its_owners_shared_ones_are_read_only_and_owners_by_role_read_all() {
        use ThreadAccess::{Moderate, Own, Read};
        let mine = facts(Some("ada"), false);
        assert_eq!(access_to(&reader("ada", Role::Member), &mine, false), Some(Own));
        assert_eq!(access_to(&reader("bob", Role::Member), &mine, false), None);
        assert_eq!(access_to(&reader("bob", Role::Approver), &mine, false), None);
        assert_eq!(access_to(&reader("bob", Role::Approver), &mine, true), Some(Read), "routed to them");
        assert_eq!(access_to(&reader("bob", Role::Viewer), &facts(Some("ada"), true), false), Some(Read));
        assert_eq!(access_to(&reader("boss", Role::Owner), &mine, false), Some(Moderate));
        assert_eq!(access_to(&reader("boss", Role::Owner), &facts(None, false), false), Some(Moderate));
        assert_eq!(access_to(&reader("ada", Role::Member), &facts(None, true), false), Some(Read));
    }

    #[test]
    fn a_thread_may_be_deleted_exactly_where_the_access_rule_allows_moderating_it() {
        for role in Role::ALL {
            for owner in [Some("ada"), Some("bob"), None] {
                for shared in [false, true] {
                    let (reader, facts) = (reader("ada", role), facts(owner, shared));
                    let allowed = access_to(&reader, &facts, false).is_some_and(|a| a >= ThreadAccess::Moderate);
                    assert_eq!(moderates(&reader, facts.owner.as_ref()), allowed, "{role:?} on {owner:?}");
                }
            }
        }
        assert!(moderates(&reader("boss", Role::Owner), Some(&PersonId::from("ada"))), "an owner by role");
        assert!(!moderates(&reader("bob", Role::Approver), Some(&PersonId::from("ada"))));
    }

    #[test]
    fn an_unreadable_thread_is_not_found_and_a_read_only_one_is_forbidden() {
        use ThreadAccess::{Moderate, Own, Read};
        assert!(matches!(require(None, Read, "t"), Err(Error::NotFound { .. })));
        assert!(matches!(require(Some(Read), Own, "t"), Err(Error::NotThreadOwner)));
        assert!(matches!(require(Some(Moderate), Own, "t"), Err(Error::NotThreadOwner)));
        assert_eq!(require(Some(Moderate), Moderate, "t").unwrap(), Moderate);
        assert_eq!(require(Some(Own), Moderate, "t").unwrap(), Own);
    }
}
