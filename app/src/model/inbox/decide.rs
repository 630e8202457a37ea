//! Deciding from the inbox: a person's verdict as the engine and the outside hub take it, and the
//! rule for batch decisions (one run or one client at a time; connection checks one by one).

use serde::{Deserialize, Serialize};
use warden_outside::protocol::Verdict as OutsideVerdict;

use super::item::{BatchGroup, InboxItem, ItemKey};
use crate::model::{DecisionInput, Verdict};

/// Most items a batch decision takes at once.
pub const MAX_BATCH: usize = 200;

/// A person's verdict on an outside request, as the hub takes it; a reason only with a denial.
pub fn outside_input(verdict: Verdict, reason: Option<String>) -> warden_outside::DecisionInput {
    let (decision, reason) = match verdict {
        Verdict::Approve => (OutsideVerdict::Approved, None),
        Verdict::Deny => (OutsideVerdict::Rejected, reason),
    };
    warden_outside::DecisionInput { decision, reason, edited_code: None }
}

/// A person's verdict on a chat approval, as the engine takes it; a reason only with a denial.
pub fn chat_input(verdict: Verdict, reason: Option<String>) -> DecisionInput {
    match verdict {
        Verdict::Approve => DecisionInput::approve(),
        Verdict::Deny => DecisionInput::deny(reason),
    }
}

/// What a batch decision did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchOutcome {
    pub decided: u32,
    /// Decided by someone or something else first.
    pub already_decided: u32,
    /// Not decided: another approver edited them since the page showed them (with a quorum, an approval
    /// names the arguments it approves), so each must be looked at again.
    pub changed: u32,
    /// Not decided again: the person had approved them already, and they wait for other approvers.
    #[serde(default)]
    pub already_voted: u32,
}

impl BatchOutcome {
    /// What the batch did, in words: "Approved 1 of 3 selected; 1 was already decided; 1 changed …".
    pub fn describe(&self, verdict: Verdict, selected: usize) -> String {
        let done = match verdict {
            Verdict::Approve => "Approved",
            Verdict::Deny => "Denied",
        };
        let mut text = format!("{done} {} of {selected} selected", self.decided);
        if self.already_decided > 0 {
            text.push_str(&format!("; {} {} already decided", self.already_decided, were(self.already_decided)));
        }
        if self.already_voted > 0 {
            text.push_str(&format!(
                "; {} you had approved already {} for the other approvers",
                self.already_voted,
                if self.already_voted == 1 { "waits" } else { "wait" }
            ));
        }
        if self.changed > 0 {
            text.push_str(&format!(
                "; {} changed since {} shown (another approver edited {}): look at {} again",
                self.changed,
                if self.changed == 1 { "it was" } else { "they were" },
                if self.changed == 1 { "it" } else { "them" },
                if self.changed == 1 { "it" } else { "them" },
            ));
        }
        text
    }
}

fn were(n: u32) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}

/// What a batch spans (its runs and clients, each once, in the order selected), or why its items cannot
/// be decided together: they must all be pending approvals (a connection check is decided on its own).
/// They may belong to any runs, threads and clients: each is decided as if on its own (the engine checks
/// each is routed to the person).
pub fn batch_group(items: &[&InboxItem]) -> Result<Vec<BatchGroup>, String> {
    if items.is_empty() {
        return Err("Select the approvals to decide first.".into());
    }
    if items.len() > MAX_BATCH {
        return Err(format!("A batch decision takes at most {MAX_BATCH} approvals; {} are selected.", items.len()));
    }
    let decided = items.iter().filter(|i| !i.is_pending()).count();
    if decided > 0 {
        return Err(format!(
            "Only pending approvals can be decided: {decided} of the selected {} already are.",
            items.len()
        ));
    }
    let Some(groups) = items.iter().map(|i| i.group()).collect::<Option<Vec<_>>>() else {
        return Err("A connection check is decided on its own: Connect or Continue anyway.".into());
    };
    let mut spans: Vec<BatchGroup> = Vec::new();
    for group in groups {
        if !spans.contains(&group) {
            spans.push(group);
        }
    }
    Ok(spans)
}

/// Where a batch's items come from, for the person to read before deciding: "from 2 runs and 1 client".
pub fn batch_spans(groups: &[BatchGroup]) -> String {
    let runs = groups.iter().filter(|g| matches!(g, BatchGroup::Run(_))).count();
    let clients = groups.len() - runs;
    match (runs, clients) {
        (0, c) => format!("from {}", count(c, "client")),
        (r, 0) => format!("from {}", count(r, "run")),
        (r, c) => format!("from {} and {}", count(r, "run"), count(c, "client")),
    }
}

/// Selects `key`, or unselects it if it was selected.
pub fn toggle_selected(selected: &mut Vec<ItemKey>, key: ItemKey) {
    if let Some(at) = selected.iter().position(|k| *k == key) {
        selected.remove(at);
    } else {
        selected.push(key);
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::inbox::fixtures::{chat, evaluation, outside, response};
    use crate::model::ApprovalStatus;
    use warden_outside::protocol::RiskLevel;
    use warden_outside::RequestStatus;

    #[test]
    fn items_of_any_runs_and_clients_batch_and_say_where_they_come_from() {
        let a = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        let b = chat("b", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:02.000Z");
        let c = chat("c", "run2", ApprovalStatus::Pending, "2026-01-01T00:00:03.000Z");
        let x = outside("x", "cl1", evaluation(RiskLevel::Low), RequestStatus::Pending, "2026-01-01T00:00:04.000Z");
        let y = outside("y", "cl1", response(), RequestStatus::Pending, "2026-01-01T00:00:05.000Z");
        assert_eq!(batch_group(&[&a, &b]), Ok(vec![BatchGroup::Run("run1".into())]));
        assert_eq!(batch_group(&[&x, &y]), Ok(vec![BatchGroup::Client("cl1".into())]));
        let mixed = batch_group(&[&a, &c, &x, &b]).expect("a batch across runs and clients");
        assert_eq!(batch_spans(&mixed), "from 2 runs and 1 client");
        assert_eq!(batch_spans(&batch_group(&[&a, &c]).expect("two runs")), "from 2 runs");
        assert!(batch_group(&[]).is_err());
        let done = chat("d", "run1", ApprovalStatus::Approved, "2026-01-01T00:00:06.000Z");
        assert!(batch_group(&[&a, &done]).unwrap_err().contains("already"));
    }

    #[test]
    fn a_batch_tells_apart_what_it_decided_what_was_decided_first_and_what_changed_since_shown() {
        let all = BatchOutcome { decided: 3, ..BatchOutcome::default() };
        assert_eq!(all.describe(Verdict::Approve, 3), "Approved 3 of 3 selected");
        let mixed = BatchOutcome { decided: 1, already_decided: 1, changed: 1, already_voted: 0 };
        assert_eq!(
            mixed.describe(Verdict::Approve, 3),
            "Approved 1 of 3 selected; 1 was already decided; 1 changed since it was shown (another approver \
             edited it): look at it again"
        );
        let edited = BatchOutcome { decided: 0, already_decided: 2, changed: 2, already_voted: 0 };
        let voted = BatchOutcome { decided: 1, already_voted: 1, ..BatchOutcome::default() };
        assert_eq!(
            voted.describe(Verdict::Approve, 2),
            "Approved 1 of 2 selected; 1 you had approved already waits for the other approvers"
        );
        assert!(edited.describe(Verdict::Deny, 4).ends_with("2 were already decided; 2 changed since they were shown (another approver edited them): look at them again"));
    }

    #[test]
    fn toggling_selects_then_unselects() {
        let mut selected = vec![ItemKey::Chat("a".into())];
        toggle_selected(&mut selected, ItemKey::Outside("b".into()));
        toggle_selected(&mut selected, ItemKey::Chat("a".into()));
        assert_eq!(selected, [ItemKey::Outside("b".into())]);
    }

    #[test]
    fn an_outside_verdict_carries_a_reason_only_when_denying() {
        let approve = outside_input(Verdict::Approve, Some("why".into()));
        assert_eq!((approve.decision, approve.reason), (OutsideVerdict::Approved, None));
        let deny = outside_input(Verdict::Deny, Some("why".into()));
        assert_eq!((deny.decision, deny.reason.as_deref()), (OutsideVerdict::Rejected, Some("why")));
    }
}
