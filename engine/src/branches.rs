//! A thread's messages form a tree: each follows a parent, and editing a person's message or asking
//! for another answer adds a sibling. The thread shows one branch, the path to its head. These are the
//! tree's questions, answered over the `(id, parent, role)` rows the store lists (`message_tree`).

use std::collections::HashMap;

use warden_types::id::MessageId;
use warden_types::message::Role;
use warden_types::thread::BranchPoint;

/// One message's place in the tree.
pub type Link = (MessageId, Option<MessageId>, Role);

/// The messages of `path` that have siblings, each with all of them in the order written.
pub fn branch_points(tree: &[Link], path: &[&MessageId]) -> Vec<BranchPoint> {
    // Indexed once: a whole long thread's path is read against its whole tree.
    let parent_of: HashMap<&MessageId, Option<&MessageId>> = tree.iter().map(|(m, p, _)| (m, p.as_ref())).collect();
    let mut children: HashMap<Option<&MessageId>, Vec<&MessageId>> = HashMap::new();
    for (m, p, _) in tree {
        children.entry(p.as_ref()).or_default().push(m);
    }
    path.iter()
        .filter_map(|id| {
            let siblings = children.get(parent_of.get(id)?)?;
            (siblings.len() > 1).then(|| BranchPoint {
                message_id: (*id).clone(),
                siblings: siblings.iter().map(|s| (*s).clone()).collect(),
            })
        })
        .collect()
}

/// Where a branch through `id` ends: following the newest reply each time, down to a message with none.
pub fn newest_leaf(tree: &[Link], id: &MessageId) -> MessageId {
    let mut at = id.clone();
    // Each step goes to a later message, so this ends; the bound guards against a cycle in bad data.
    for _ in 0..tree.len() {
        match tree.iter().rev().find(|(_, parent, _)| parent.as_ref() == Some(&at)) {
            Some((child, _, _)) => at = child.clone(),
            None => break,
        }
    }
    at
}

/// The parent of `id` and its role, if `id` is in the tree.
pub fn find<'a>(tree: &'a [Link], id: &MessageId) -> Option<&'a Link> {
    tree.iter().find(|(m, _, _)| m == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(id: &str, parent: Option<&str>, role: Role) -> Link {
        (id.into(), parent.map(MessageId::from), role)
    }

    /// u1 -> a1, then a1 regenerated as a2, and u1 edited as u2 -> a3.
    fn tree() -> Vec<Link> {
        vec![
            link("u1", None, Role::User),
            link("a1", Some("u1"), Role::Assistant),
            link("a2", Some("u1"), Role::Assistant),
            link("u2", None, Role::User),
            link("a3", Some("u2"), Role::Assistant),
        ]
    }

    #[test]
    fn siblings_are_listed_for_each_message_of_the_path_that_has_them() {
        let ids = |names: [&str; 2]| names.map(MessageId::from);
        let points = branch_points(&tree(), &ids(["u1", "a2"]).each_ref());
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].siblings, ["u1", "u2"]);
        assert_eq!(points[1].siblings, ["a1", "a2"]);
        assert!(branch_points(&tree(), &ids(["u2", "a3"]).each_ref()).iter().all(|p| p.message_id == "u2"));
    }

    #[test]
    fn a_branch_ends_at_the_newest_reply_of_each_message() {
        assert_eq!(newest_leaf(&tree(), &"u1".into()), "a2");
        assert_eq!(newest_leaf(&tree(), &"a1".into()), "a1");
        assert_eq!(newest_leaf(&tree(), &"u2".into()), "a3");
    }
}
