//! The list is fetched again on every change, so its items are trimmed: each long text (code,
//! output, a diff, an argument) is cut to [`SHOWN_BYTES`]; the thread or the full-screen view shows
//! all of it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warden_outside::protocol::ClientFrame;

use super::item::{InboxItem, ItemKey};
use crate::model::{DecidedBy, Preview};

/// Most bytes of one long text an item in the list carries.
pub const SHOWN_BYTES: usize = 4 * 1024;

/// The item as the list carries it: every long text cut to [`SHOWN_BYTES`]; and whether any was.
pub fn trimmed(mut item: InboxItem) -> (InboxItem, bool) {
    let mut cut = false;
    let text = |t: &mut String| cut_text(t, SHOWN_BYTES);
    match &mut item {
        InboxItem::Chat(a) => {
            cut |= text(&mut a.summary);
            match &mut a.preview {
                Some(Preview::Diff { path, diff }) => {
                    cut |= text(path);
                    cut |= text(diff);
                }
                Some(Preview::Command { command }) => cut |= text(command),
                None => {}
            }
            if let Some(DecidedBy::User { edited_arguments, reason, .. }) = a.decision.as_mut().map(|d| &mut d.by) {
                if let Some(reason) = reason {
                    cut |= text(reason);
                }
                if let Some(edited) = edited_arguments {
                    cut |= cut_json(edited);
                }
            }
            cut |= cut_json(&mut a.arguments);
        }
        InboxItem::Check(c) => {
            cut |= text(&mut c.thread_title);
            if let Some(error) = &mut c.check.error {
                cut |= text(error);
            }
        }
        InboxItem::Outside(r) => {
            let metadata = match &mut r.request {
                ClientFrame::SecurityEvaluation(e) => {
                    cut |= text(&mut e.code);
                    cut |= text(&mut e.explanation);
                    &mut e.metadata
                }
                ClientFrame::CodeResponse(c) => {
                    cut |= text(&mut c.stdout);
                    cut |= text(&mut c.stderr);
                    &mut c.metadata
                }
            };
            if let Some(map) = metadata.take() {
                let mut value = Value::Object(map);
                cut |= cut_json(&mut value);
                *metadata = match value {
                    Value::Object(map) => Some(map),
                    _ => None,
                };
            }
            if let Some(decision) = &mut r.decision {
                if let Some(reason) = &mut decision.reason {
                    cut |= text(reason);
                }
                if let Some(edited) = &mut decision.edited_code {
                    cut |= text(edited);
                }
            }
            if let Some(shown) = &mut r.shown_code {
                cut |= text(shown);
            }
        }
    }
    (item, cut)
}

/// Cuts `text` to at most `max` bytes (at a character boundary), marked with `…`; whether it did.
fn cut_text(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    true
}

/// Cuts a JSON value to about [`SHOWN_BYTES`] of text; whether it did.
fn cut_json(value: &mut Value) -> bool {
    let mut budget = SHOWN_BYTES;
    cut_value(value, &mut budget)
}

/// Cuts a JSON value to about `budget` bytes of text: strings are cut, and the elements and fields
/// past the budget are left out (an object's smallest fields are kept first). Whether anything was.
fn cut_value(value: &mut Value, budget: &mut usize) -> bool {
    match value {
        Value::String(s) => {
            let cut = cut_text(s, *budget);
            *budget = budget.saturating_sub(s.len());
            cut
        }
        Value::Array(items) => {
            let mut cut = false;
            let mut kept = 0;
            for item in items.iter_mut() {
                if *budget == 0 {
                    break;
                }
                cut |= cut_value(item, budget);
                kept += 1;
            }
            cut |= kept < items.len();
            items.truncate(kept);
            cut
        }
        Value::Object(fields) => {
            // The small fields first (a path, a flag), so a long one cannot crowd them out.
            let mut order: Vec<(usize, String)> = fields
                .iter()
                .map(|(key, field)| (serde_json::to_string(field).map_or(0, |t| t.len()), key.clone()))
                .collect();
            order.sort();
            let mut cut = false;
            for (_, key) in order {
                if *budget == 0 {
                    fields.remove(&key);
                    cut = true;
                    continue;
                }
                *budget = budget.saturating_sub(key.len());
                if let Some(field) = fields.get_mut(&key) {
                    cut |= cut_value(field, budget);
                }
            }
            cut
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {
            *budget = budget.saturating_sub(8);
            false
        }
    }
}

/// An outside request whose code (or output to pass on) the list carries cut short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutCode {
    pub key: ItemKey,
    /// How long all of it is, in bytes.
    pub bytes: usize,
}

/// What of an outside request's code (or output) the list will cut (see [`trimmed`]); `None` when
/// all of it is listed, or the item is no outside request.
pub fn cut_code(item: &InboxItem) -> Option<CutCode> {
    let InboxItem::Outside(r) = item else { return None };
    let (cut, bytes) = match &r.as_shown() {
        ClientFrame::SecurityEvaluation(e) => (e.code.len() > SHOWN_BYTES, e.code.len()),
        ClientFrame::CodeResponse(c) => {
            (c.stdout.len() > SHOWN_BYTES || c.stderr.len() > SHOWN_BYTES, c.stdout.len() + c.stderr.len())
        }
    };
    cut.then(|| CutCode { key: item.key(), bytes })
}

/// "37 KiB" or "900 bytes".
pub fn size_text(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::inbox::fixtures::{chat, outside};
    use crate::model::ApprovalStatus;
    use serde_json::json;
    use warden_outside::protocol::{RiskLevel, SecurityEvaluation};
    use warden_outside::RequestStatus;

    #[test]
    fn long_texts_are_cut_for_the_list_and_short_ones_are_left_alone() {
        let big = "é".repeat(SHOWN_BYTES);
        let frame = ClientFrame::SecurityEvaluation(SecurityEvaluation {
            id: "e".into(),
            code: big.clone(),
            language: None,
            explanation: "short".into(),
            risk_level: RiskLevel::Low,
            metadata: None,
            warden_call_id: None,
        });
        let (item, cut) = trimmed(outside("x", "cl1", frame, RequestStatus::Pending, "2026-01-01T00:00:01.000Z"));
        assert!(cut);
        let InboxItem::Outside(r) = &item else { unreachable!() };
        let ClientFrame::SecurityEvaluation(e) = &r.request else { unreachable!() };
        assert!(e.code.len() <= SHOWN_BYTES + 3 && e.code.ends_with('…'), "{}", e.code.len());
        assert_eq!(e.explanation, "short");

        let InboxItem::Chat(mut a) = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z") else {
            unreachable!()
        };
        a.arguments = json!({"path": "n.txt", "content": big, "lines": vec![1; 10_000]});
        a.preview = Some(Preview::Diff { path: "n.txt".into(), diff: "+x\n".repeat(SHOWN_BYTES) });
        let (item, cut) = trimmed(InboxItem::Chat(a));
        assert!(cut);
        let InboxItem::Chat(a) = &item else { unreachable!() };
        assert_eq!(a.arguments["path"], "n.txt");
        assert!(serde_json::to_string(&a.arguments).unwrap().len() < 2 * SHOWN_BYTES);
        let Some(Preview::Diff { diff, .. }) = &a.preview else { unreachable!() };
        assert!(diff.len() <= SHOWN_BYTES + 3);

        let small = chat("b", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        assert_eq!(trimmed(small.clone()), (small, false));
    }
}
