//! What the inbox shows: every approval, from Warden's own chats (gated tool calls and connection
//! checks, a run waiting for an MCP server) and from outside clients (their requests), as one list;
//! the filters on it; and the rule for batch decisions (one run or one client at a time; connection
//! checks one by one). Plain data and functions, the same on the server and in the browser.
//!
//! The list is fetched again on every change, so its items are trimmed: each long text (code,
//! output, a diff, an argument) is cut to [`SHOWN_BYTES`]; the thread or the full-screen view shows
//! all of it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warden_outside::protocol::{ClientFrame, Verdict as OutsideVerdict};
use warden_outside::{OutsideRequest, RequestStatus};

use crate::model::{Approval, ApprovalStatus, CheckStatus, DecidedBy, DecisionInput, Preview, ThreadCheck, Verdict};
use crate::wording::{check_decision_text, decision_text, kind_label, outside_decision_text, risk_label};

/// Most items a batch decision takes at once.
pub const MAX_BATCH: usize = 200;

/// Most items one list carries, newest first.
pub const MAX_LISTED: usize = 500;

/// Most bytes of one long text an item in the list carries.
pub const SHOWN_BYTES: usize = 4 * 1024;

/// One approval in the inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", content = "item", rename_all = "snake_case")]
pub enum InboxItem {
    /// A gated tool call of one of Warden's runs.
    Chat(Box<Approval>),
    /// A request of an outside executor or agent.
    Outside(Box<OutsideRequest>),
    /// A connection check: a run of a chat waits for an MCP server that is offline or disabled.
    Check(Box<ThreadCheck>),
}

/// Which item: stable across refreshes, and written into the page as `data-key`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "source", content = "id", rename_all = "snake_case")]
pub enum ItemKey {
    Chat(String),
    Outside(String),
    Check(String),
}

impl ItemKey {
    /// `chat:<id>`, `outside:<id>` or `check:<id>`.
    pub fn to_attr(&self) -> String {
        match self {
            ItemKey::Chat(id) => format!("chat:{id}"),
            ItemKey::Outside(id) => format!("outside:{id}"),
            ItemKey::Check(id) => format!("check:{id}"),
        }
    }

    pub fn from_attr(attr: &str) -> Option<Self> {
        match attr.split_once(':')? {
            ("chat", id) if !id.is_empty() => Some(ItemKey::Chat(id.to_string())),
            ("outside", id) if !id.is_empty() => Some(ItemKey::Outside(id.to_string())),
            ("check", id) if !id.is_empty() => Some(ItemKey::Check(id.to_string())),
            _ => None,
        }
    }
}

/// Where an item is in its life, as the status filter sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemState {
    Pending,
    /// Approved, denied, cancelled, superseded: someone or something decided.
    Decided,
    /// Nobody decided in time.
    Expired,
}

/// What a batch decision may span: the pending approvals of one run, or of one outside client.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum BatchGroup {
    Run(String),
    Client(String),
}

impl InboxItem {
    pub fn key(&self) -> ItemKey {
        match self {
            InboxItem::Chat(a) => ItemKey::Chat(a.id.clone().to_string()),
            InboxItem::Outside(r) => ItemKey::Outside(r.id.clone().to_string()),
            InboxItem::Check(c) => ItemKey::Check(c.check.id.clone().to_string()),
        }
    }

    pub fn created_at(&self) -> &str {
        match self {
            InboxItem::Chat(a) => &a.created_at,
            InboxItem::Outside(r) => &r.created_at,
            InboxItem::Check(c) => &c.check.created_at,
        }
    }

    /// `low`, `medium` or `high`; a code response and a connection check have none. An outside
    /// request's is the higher of the client's claim and Warden's own reading: a client cannot
    /// lower it.
    pub fn risk(&self) -> Option<&'static str> {
        match self {
            InboxItem::Chat(a) => Some(a.risk.label()),
            InboxItem::Outside(r) => r.risk.max(r.warden_risk).map(risk_label),
            InboxItem::Check(_) => None,
        }
    }

    pub fn state(&self) -> ItemState {
        match self {
            InboxItem::Chat(a) => match a.status {
                ApprovalStatus::Pending => ItemState::Pending,
                ApprovalStatus::TimedOut => ItemState::Expired,
                _ => ItemState::Decided,
            },
            InboxItem::Outside(r) => match r.status {
                RequestStatus::Pending => ItemState::Pending,
                RequestStatus::Expired => ItemState::Expired,
                RequestStatus::Approved | RequestStatus::Rejected => ItemState::Decided,
            },
            InboxItem::Check(c) => match c.check.status {
                CheckStatus::Pending => ItemState::Pending,
                _ => ItemState::Decided,
            },
        }
    }

    /// Changes whenever the item must be drawn again: decided, expired, given more time.
    pub fn revision(&self) -> String {
        match self {
            InboxItem::Chat(a) => format!("{:?}|{}", a.status, a.decided_at.as_deref().unwrap_or_default()),
            InboxItem::Outside(r) => {
                format!("{:?}|{}|{}", r.status, r.decided_at.as_deref().unwrap_or_default(), r.expires_at)
            }
            // A Connect that did not connect leaves it pending with its error.
            InboxItem::Check(c) => format!(
                "{:?}|{}|{}",
                c.check.status,
                c.check.decided_at.as_deref().unwrap_or_default(),
                c.check.error.as_deref().unwrap_or_default()
            ),
        }
    }

    pub fn is_pending(&self) -> bool {
        self.state() == ItemState::Pending
    }

    /// What a batch decision with it would span; `None` for a connection check, which is decided
    /// on its own (Connect or Continue anyway is no approval or denial).
    pub fn group(&self) -> Option<BatchGroup> {
        match self {
            InboxItem::Chat(a) => Some(BatchGroup::Run(a.run_id.clone().to_string())),
            InboxItem::Outside(r) => Some(BatchGroup::Client(r.client_id.clone().to_string())),
            InboxItem::Check(_) => None,
        }
    }

    /// Where Enter (or "Open") takes the person: the chat of the run (also for an outside request on the
    /// card of one of its calls), or the request full screen.
    pub fn href(&self) -> String {
        match self {
            InboxItem::Chat(a) => format!("/chat/{}", a.thread_id),
            InboxItem::Outside(r) => match &r.linked_call {
                Some(linked) => format!("/chat/{}", linked.thread_id),
                None => format!("/approvals/{}", r.id),
            },
            InboxItem::Check(c) => format!("/chat/{}", c.check.thread_id),
        }
    }

    /// The item's heading. Chat summaries come from the model's call: text only.
    pub fn title(&self) -> String {
        match self {
            InboxItem::Chat(a) => a.summary.clone(),
            InboxItem::Outside(r) => format!("{} from {}", kind_label(r.kind), r.client_name),
            InboxItem::Check(c) => format!("{} is {}", c.check.server, c.check.down.label()),
        }
    }

    /// How it was decided, in words (or that it waits).
    pub fn outcome(&self) -> String {
        match self {
            InboxItem::Chat(a) => decision_text(a),
            InboxItem::Outside(r) => outside_decision_text(r),
            InboxItem::Check(c) => check_decision_text(c),
        }
    }
}

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

/// Which items the inbox lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxFilter {
    pub source: SourceFilter,
    /// `low`, `medium` or `high`; `None` for any (and for code responses, which have no risk).
    pub risk: Option<String>,
    pub status: StatusFilter,
}

impl Default for InboxFilter {
    fn default() -> Self {
        Self { source: SourceFilter::All, risk: None, status: StatusFilter::Pending }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum SourceFilter {
    All,
    Chat,
    /// One outside client, by id.
    Client(String),
}

impl SourceFilter {
    /// The `<select>` value: `all`, `chat` or `client:<id>`.
    pub fn to_value(&self) -> String {
        match self {
            SourceFilter::All => "all".into(),
            SourceFilter::Chat => "chat".into(),
            SourceFilter::Client(id) => format!("client:{id}"),
        }
    }

    pub fn from_value(value: &str) -> Self {
        match value {
            "chat" => SourceFilter::Chat,
            other => match other.strip_prefix("client:") {
                Some(id) if !id.is_empty() => SourceFilter::Client(id.to_string()),
                _ => SourceFilter::All,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    Pending,
    Decided,
    Expired,
    All,
}

impl StatusFilter {
    pub fn to_value(self) -> &'static str {
        match self {
            StatusFilter::Pending => "pending",
            StatusFilter::Decided => "decided",
            StatusFilter::Expired => "expired",
            StatusFilter::All => "all",
        }
    }

    pub fn from_value(value: &str) -> Self {
        match value {
            "decided" => StatusFilter::Decided,
            "expired" => StatusFilter::Expired,
            "all" => StatusFilter::All,
            _ => StatusFilter::Pending,
        }
    }
}

impl StatusFilter {
    /// The statuses of chat approvals to ask the store for, one query each (`None`: any).
    pub fn chat_statuses(self) -> &'static [Option<ApprovalStatus>] {
        match self {
            StatusFilter::Pending => &[Some(ApprovalStatus::Pending)],
            StatusFilter::Decided => &[
                Some(ApprovalStatus::Approved),
                Some(ApprovalStatus::Denied),
                Some(ApprovalStatus::Cancelled),
                Some(ApprovalStatus::Superseded),
            ],
            StatusFilter::Expired => &[Some(ApprovalStatus::TimedOut)],
            StatusFilter::All => &[None],
        }
    }

    /// The statuses of outside requests to ask the hub for, one query each (`None`: any).
    pub fn outside_statuses(self) -> &'static [Option<RequestStatus>] {
        match self {
            StatusFilter::Pending => &[Some(RequestStatus::Pending)],
            StatusFilter::Decided => &[Some(RequestStatus::Approved), Some(RequestStatus::Rejected)],
            StatusFilter::Expired => &[Some(RequestStatus::Expired)],
            StatusFilter::All => &[None],
        }
    }

    /// The statuses of connection checks to ask the store for, one query each (`None`: any).
    pub fn check_statuses(self) -> &'static [Option<CheckStatus>] {
        match self {
            StatusFilter::Pending => &[Some(CheckStatus::Pending)],
            StatusFilter::Decided => {
                &[Some(CheckStatus::Connected), Some(CheckStatus::ContinuedWithout), Some(CheckStatus::Cancelled)]
            }
            // A check waits as long as its run does.
            StatusFilter::Expired => &[],
            StatusFilter::All => &[None],
        }
    }
}

impl InboxFilter {
    pub fn wants_chat(&self) -> bool {
        matches!(self.source, SourceFilter::All | SourceFilter::Chat)
    }

    /// The outside client to list: `Some(None)` for all of them, `None` for none.
    pub fn wants_outside(&self) -> Option<Option<&str>> {
        match &self.source {
            SourceFilter::All => Some(None),
            SourceFilter::Chat => None,
            SourceFilter::Client(id) => Some(Some(id)),
        }
    }

    pub fn matches(&self, item: &InboxItem) -> bool {
        let source = match (&self.source, item) {
            (SourceFilter::All, _) => true,
            (SourceFilter::Chat, InboxItem::Chat(_) | InboxItem::Check(_)) => true,
            // On the card of one of Warden's calls: the chat's.
            (SourceFilter::Chat, InboxItem::Outside(r)) => r.linked_call.is_some(),
            (SourceFilter::Client(id), InboxItem::Outside(r)) => r.client_id == *id,
            _ => false,
        };
        let risk = self.risk.as_deref().is_none_or(|want| item.risk() == Some(want));
        let status = match self.status {
            StatusFilter::All => true,
            StatusFilter::Pending => item.state() == ItemState::Pending,
            StatusFilter::Decided => item.state() == ItemState::Decided,
            StatusFilter::Expired => item.state() == ItemState::Expired,
        };
        source && risk && status
    }
}

/// Puts the items in inbox order, newest first (the stored times are RFC 3339 in UTC with
/// milliseconds on both sides, so they sort as text); ties by key, so the order is stable.
pub fn sort_newest_first(items: &mut [InboxItem]) {
    items.sort_by(|a, b| b.created_at().cmp(a.created_at()).then_with(|| a.key().to_attr().cmp(&b.key().to_attr())));
}

/// Who an item came from, for [`fair_share`]: Warden's own chats (their approvals, connection checks
/// and the requests on their calls' cards) or one outside client.
fn source_of(item: &InboxItem) -> &str {
    match item {
        InboxItem::Chat(_) | InboxItem::Check(_) => "",
        InboxItem::Outside(r) if r.linked_call.is_some() => "",
        InboxItem::Outside(r) => r.client_id.as_str(),
    }
}

/// At most `max` of `items`, shared out among their sources: the pending ones first, then the newest,
/// taken from each source in turn, so a client that floods the inbox fills only its own share and
/// never hides a chat's approval or another client's request. In inbox order.
pub fn fair_share(mut items: Vec<InboxItem>, max: usize) -> Vec<InboxItem> {
    if items.len() > max {
        sort_newest_first(&mut items);
        // Pending before decided (stable: newest first within each).
        items.sort_by_key(|item| !item.is_pending());
        let mut by_source: Vec<(String, std::collections::VecDeque<InboxItem>)> = Vec::new();
        for item in items {
            let source = source_of(&item).to_string();
            match by_source.iter_mut().find(|(s, _)| *s == source) {
                Some((_, queue)) => queue.push_back(item),
                None => by_source.push((source, [item].into())),
            }
        }
        let mut taken = Vec::with_capacity(max);
        while taken.len() < max && by_source.iter().any(|(_, queue)| !queue.is_empty()) {
            for (_, queue) in &mut by_source {
                if taken.len() < max {
                    taken.extend(queue.pop_front());
                }
            }
        }
        items = taken;
    }
    sort_newest_first(&mut items);
    items
}

/// The order the inbox shows its rows in, kept while the page is open: an item listed stays where it
/// is, and one that arrives later goes below the rest (a flood of requests never moves a row, or its
/// Approve button, under the person's pointer). [`RowOrder::arrived`] counts those below.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowOrder {
    keys: Vec<ItemKey>,
    /// Items that arrived after the order was last started over, in `keys`.
    arrived: Vec<ItemKey>,
    started: bool,
}

impl RowOrder {
    /// `items` (in inbox order) in the order their rows keep; the first list sets it.
    pub fn arrange(&mut self, items: Vec<InboxItem>) -> Vec<InboxItem> {
        let listed: std::collections::HashSet<ItemKey> = items.iter().map(InboxItem::key).collect();
        self.keys.retain(|key| listed.contains(key));
        self.arrived.retain(|key| listed.contains(key));
        let mut position: std::collections::HashMap<ItemKey, usize> =
            self.keys.iter().enumerate().map(|(i, key)| (key.clone(), i)).collect();
        for item in &items {
            let key = item.key();
            if !position.contains_key(&key) {
                position.insert(key.clone(), self.keys.len());
                if self.started {
                    self.arrived.push(key.clone());
                }
                self.keys.push(key);
            }
        }
        self.started = true;
        let mut items = items;
        items.sort_by_key(|item| position.get(&item.key()).copied().unwrap_or(usize::MAX));
        items
    }

    /// How many rows arrived below since the order was started over.
    pub fn arrived(&self) -> usize {
        self.arrived.len()
    }

    /// Forgets the order: the next list is shown in inbox order (newest first).
    pub fn start_over(&mut self) {
        *self = Self::default();
    }
}

/// An outside client as the source filter offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRef {
    pub id: String,
    pub name: String,
}

/// One answer of the inbox's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxList {
    /// Trimmed (see [`trimmed`]).
    pub items: Vec<InboxItem>,
    pub clients: Vec<ClientRef>,
    /// The items with a text cut short.
    #[serde(default)]
    pub cut: Vec<ItemKey>,
    /// The outside requests whose code (or output) is cut short: Approve waits until all is shown.
    #[serde(default)]
    pub cut_code: Vec<CutCode>,
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
    let (cut, bytes) = match &r.request {
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

/// What a batch decision did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchOutcome {
    pub decided: u32,
    /// Decided by someone or something else first.
    pub already_decided: u32,
}

/// The one run or client the items belong to, or why they cannot be decided together.
pub fn batch_group(items: &[&InboxItem]) -> Result<BatchGroup, String> {
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
    if groups.iter().all(|g| *g == groups[0]) {
        return Ok(groups[0].clone());
    }
    let mut runs: Vec<String> = Vec::new();
    let mut clients: Vec<String> = Vec::new();
    for group in groups {
        let (list, id) = match group {
            BatchGroup::Run(id) => (&mut runs, id),
            BatchGroup::Client(id) => (&mut clients, id),
        };
        if !list.contains(&id) {
            list.push(id);
        }
    }
    Err(format!(
        "A batch decision applies to one run or one client at a time; the selection spans {} and {}. \
         Decide them separately.",
        count(runs.len(), "run"),
        count(clients.len(), "client")
    ))
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
    use crate::model::CheckReason;
    use serde_json::json;
    use warden_outside::protocol::{CodeResponse, RiskLevel, SecurityEvaluation};
    use warden_types::tool::{Risk, ToolOrigin};

    fn chat(id: &str, run: &str, status: ApprovalStatus, created: &str) -> InboxItem {
        InboxItem::Chat(Box::new(Approval {
            id: id.into(),
            run_id: run.into(),
            thread_id: "t1".into(),
            tool_call_id: format!("call-{id}").into(),
            tool: "write_file".into(),
            origin: ToolOrigin::BuiltIn,
            arguments: json!({}),
            summary: format!("Write {id}"),
            risk: Risk::Medium,
            preview: None,
            status,
            created_at: created.into(),
            decided_at: None,
            expires_at: None,
            decision: None,
        }))
    }

    fn outside(id: &str, client: &str, frame: ClientFrame, status: RequestStatus, created: &str) -> InboxItem {
        InboxItem::Outside(Box::new(OutsideRequest {
            id: id.into(),
            client_id: client.into(),
            client_name: format!("{client} name"),
            client_request_id: format!("c-{id}"),
            kind: frame.kind(),
            risk: frame.risk(),
            warden_risk: None,
            request: frame,
            follows: None,
            status,
            decision: None,
            created_at: created.into(),
            expires_at: "2030-01-01T00:00:00.000Z".into(),
            decided_at: None,
            delivered_at: None,
            linked_call: None,
        }))
    }

    fn check(id: &str, status: CheckStatus, created: &str) -> InboxItem {
        use crate::model::{ConnectionCheck, ServerDown};
        InboxItem::Check(Box::new(ThreadCheck {
            check: ConnectionCheck {
                id: id.into(),
                run_id: "run1".into(),
                thread_id: "t1".into(),
                server: "fx".into(),
                reason: CheckReason::CalledTool { tool: "fx__echo".into() },
                down: ServerDown::Offline,
                status,
                error: None,
                created_at: created.into(),
                decided_at: None,
            },
            thread_title: "A thread".into(),
        }))
    }

    #[test]
    fn a_connection_check_is_a_chat_item_without_risk_that_is_never_batched() {
        let waiting = check("c", CheckStatus::Pending, "2026-01-01T00:00:03.000Z");
        assert_eq!(waiting.key().to_attr(), "check:c");
        assert_eq!(ItemKey::from_attr("check:c"), Some(waiting.key()));
        assert_eq!(waiting.href(), "/chat/t1");
        assert_eq!(waiting.title(), "fx is offline");
        let chats = InboxFilter { source: SourceFilter::Chat, risk: None, status: StatusFilter::Pending };
        assert!(chats.matches(&waiting));
        assert!(InboxFilter::default().matches(&waiting));
        let client = InboxFilter { source: SourceFilter::Client("cl1".into()), ..InboxFilter::default() };
        assert!(!client.matches(&waiting));
        let risky = InboxFilter { risk: Some("low".into()), ..InboxFilter::default() };
        assert!(!risky.matches(&waiting), "a check has no risk");
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            let filter = InboxFilter { status, ..InboxFilter::default() };
            for s in
                [CheckStatus::Pending, CheckStatus::Connected, CheckStatus::ContinuedWithout, CheckStatus::Cancelled]
            {
                let asked = status.check_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                assert_eq!(asked, filter.matches(&check("c", s, "2026-01-01T00:00:01.000Z")), "{status:?} {s:?}");
            }
        }
        let approval = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        assert!(batch_group(&[&waiting]).unwrap_err().contains("on its own"));
        assert!(batch_group(&[&approval, &waiting]).unwrap_err().contains("on its own"));
        let mut items = vec![approval, waiting];
        sort_newest_first(&mut items);
        assert_eq!(items[0].key(), ItemKey::Check("c".into()), "newest first with the approvals");
    }

    fn evaluation(risk: RiskLevel) -> ClientFrame {
        ClientFrame::SecurityEvaluation(SecurityEvaluation {
            id: "e".into(),
            code: "ls".into(),
            language: None,
            explanation: "lists".into(),
            risk_level: risk,
            metadata: None,
            warden_call_id: None,
        })
    }

    fn response() -> ClientFrame {
        ClientFrame::CodeResponse(CodeResponse {
            id: "r".into(),
            follows: None,
            stdout: "out".into(),
            stderr: String::new(),
            exit_code: Some(0),
            metadata: None,
        })
    }

    #[test]
    fn items_of_one_run_or_one_client_batch_and_mixed_ones_are_refused_with_the_reason() {
        let a = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        let b = chat("b", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:02.000Z");
        let c = chat("c", "run2", ApprovalStatus::Pending, "2026-01-01T00:00:03.000Z");
        let x = outside("x", "cl1", evaluation(RiskLevel::Low), RequestStatus::Pending, "2026-01-01T00:00:04.000Z");
        let y = outside("y", "cl1", response(), RequestStatus::Pending, "2026-01-01T00:00:05.000Z");
        assert_eq!(batch_group(&[&a, &b]), Ok(BatchGroup::Run("run1".into())));
        assert_eq!(batch_group(&[&x, &y]), Ok(BatchGroup::Client("cl1".into())));
        let mixed = batch_group(&[&a, &c, &x]).unwrap_err();
        assert!(mixed.contains("one run or one client") && mixed.contains("2 runs and 1 client"), "{mixed}");
        assert!(batch_group(&[&a, &c]).unwrap_err().contains("2 runs and 0 clients"));
        assert!(batch_group(&[]).is_err());
        let done = chat("d", "run1", ApprovalStatus::Approved, "2026-01-01T00:00:06.000Z");
        assert!(batch_group(&[&a, &done]).unwrap_err().contains("already"));
    }

    #[test]
    fn filters_select_by_source_risk_and_state() {
        let pending_chat = chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z");
        let timed_out = chat("b", "run1", ApprovalStatus::TimedOut, "2026-01-01T00:00:02.000Z");
        let high = outside("x", "cl1", evaluation(RiskLevel::High), RequestStatus::Pending, "2026-01-01T00:00:03.000Z");
        let expired = outside("y", "cl2", response(), RequestStatus::Expired, "2026-01-01T00:00:04.000Z");
        let approved =
            outside("z", "cl2", evaluation(RiskLevel::Low), RequestStatus::Approved, "2026-01-01T00:00:05.000Z");
        let all = [&pending_chat, &timed_out, &high, &expired, &approved];
        let keys = |filter: &InboxFilter| -> Vec<ItemKey> {
            all.iter().filter(|i| filter.matches(i)).map(|i| i.key()).collect()
        };
        assert_eq!(keys(&InboxFilter::default()), [pending_chat.key(), high.key()]);
        let expired_any = InboxFilter { status: StatusFilter::Expired, ..InboxFilter::default() };
        assert_eq!(keys(&expired_any), [timed_out.key(), expired.key()]);
        let client2 = InboxFilter { source: SourceFilter::Client("cl2".into()), risk: None, status: StatusFilter::All };
        assert_eq!(keys(&client2), [expired.key(), approved.key()]);
        let high_only = InboxFilter { risk: Some("high".into()), status: StatusFilter::All, ..InboxFilter::default() };
        assert_eq!(keys(&high_only), [high.key()]);
        let decided_chat = InboxFilter { source: SourceFilter::Chat, risk: None, status: StatusFilter::Decided };
        assert!(keys(&decided_chat).is_empty());
    }

    #[test]
    fn the_list_is_newest_first_across_sources() {
        let mut items = vec![
            chat("a", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z"),
            outside("x", "cl1", response(), RequestStatus::Pending, "2026-01-01T00:00:03.000Z"),
            chat("b", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:02.000Z"),
        ];
        sort_newest_first(&mut items);
        let order: Vec<String> = items.iter().map(|i| i.key().to_attr()).collect();
        assert_eq!(order, ["outside:x", "chat:b", "chat:a"]);
    }

    /// 600 requests of one client, newer than everything else, take only their share of the 500 listed:
    /// the chat's approval and the other client's request are still there.
    #[test]
    fn a_flood_from_one_client_hides_no_other_source() {
        let mut items = vec![
            chat("mine", "run1", ApprovalStatus::Pending, "2026-01-01T00:00:01.000Z"),
            outside("quiet", "cl2", response(), RequestStatus::Pending, "2026-01-01T00:00:02.000Z"),
        ];
        for i in 0..600 {
            let at = format!("2026-01-01T01:{:02}:{:02}.000Z", i / 60, i % 60);
            items.push(outside(&format!("flood{i}"), "cl1", response(), RequestStatus::Pending, &at));
        }
        let listed = fair_share(items, MAX_LISTED);
        assert_eq!(listed.len(), MAX_LISTED);
        let keys: Vec<String> = listed.iter().map(|i| i.key().to_attr()).collect();
        assert!(keys.contains(&"chat:mine".to_string()) && keys.contains(&"outside:quiet".to_string()));
        // Newest first still; the flood's newest are the ones kept.
        assert_eq!(keys[0], "outside:flood599");
        assert_eq!(keys[MAX_LISTED - 1], "chat:mine");
        // Under the cap nothing is left out.
        assert_eq!(fair_share(listed[..10].to_vec(), MAX_LISTED).len(), 10);
    }

    /// Rows keep their places: what arrives goes below, what is decided leaves, and starting over
    /// shows the newest first again.
    #[test]
    fn rows_keep_their_places_and_newcomers_go_below() {
        let at = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
        let item = |id: &str, s: u32| chat(id, "run1", ApprovalStatus::Pending, &at(s));
        let keys = |items: &[InboxItem]| items.iter().map(|i| i.key().to_attr()).collect::<Vec<_>>();
        let mut order = RowOrder::default();
        let first = order.arrange(vec![item("b", 2), item("a", 1)]);
        assert_eq!(keys(&first), ["chat:b", "chat:a"]);
        assert_eq!(order.arrived(), 0);
        // Newer ones arrive (listed first by the server), one is decided.
        let next = order.arrange(vec![item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&next), ["chat:b", "chat:d", "chat:c"]);
        assert_eq!(order.arrived(), 2);
        let later = order.arrange(vec![item("e", 5), item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&later), ["chat:b", "chat:d", "chat:c", "chat:e"]);
        order.start_over();
        let fresh = order.arrange(vec![item("e", 5), item("d", 4), item("c", 3), item("b", 2)]);
        assert_eq!(keys(&fresh), ["chat:e", "chat:d", "chat:c", "chat:b"]);
        assert_eq!(order.arrived(), 0);
    }

    #[test]
    fn toggling_selects_then_unselects() {
        let mut selected = vec![ItemKey::Chat("a".into())];
        toggle_selected(&mut selected, ItemKey::Outside("b".into()));
        toggle_selected(&mut selected, ItemKey::Chat("a".into()));
        assert_eq!(selected, [ItemKey::Outside("b".into())]);
    }

    #[test]
    fn each_status_filter_asks_the_stores_for_exactly_the_statuses_it_shows() {
        use ApprovalStatus as A;
        let chat_all = [A::Pending, A::Approved, A::Denied, A::TimedOut, A::Cancelled, A::Superseded];
        let outside_all =
            [RequestStatus::Pending, RequestStatus::Approved, RequestStatus::Rejected, RequestStatus::Expired];
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            let filter = InboxFilter { status, ..InboxFilter::default() };
            for s in chat_all {
                let asked = status.chat_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                let item = chat("a", "run1", s, "2026-01-01T00:00:01.000Z");
                assert_eq!(asked, filter.matches(&item), "{status:?} {s:?}");
            }
            for s in outside_all {
                let asked = status.outside_statuses().iter().any(|q| q.is_none_or(|q| q == s));
                let item = outside("x", "cl1", evaluation(RiskLevel::Low), s, "2026-01-01T00:00:01.000Z");
                assert_eq!(asked, filter.matches(&item), "{status:?} {s:?}");
            }
        }
    }

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

    #[test]
    fn an_outside_verdict_carries_a_reason_only_when_denying() {
        let approve = outside_input(Verdict::Approve, Some("why".into()));
        assert_eq!((approve.decision, approve.reason), (OutsideVerdict::Approved, None));
        let deny = outside_input(Verdict::Deny, Some("why".into()));
        assert_eq!((deny.decision, deny.reason.as_deref()), (OutsideVerdict::Rejected, Some("why")));
    }

    #[test]
    fn keys_and_filter_values_round_trip_through_the_page() {
        for key in [ItemKey::Chat("a-1".into()), ItemKey::Outside("o:2".into())] {
            assert_eq!(ItemKey::from_attr(&key.to_attr()), Some(key));
        }
        assert_eq!(ItemKey::from_attr("chat:"), None);
        assert_eq!(ItemKey::from_attr("other:x"), None);
        for source in [SourceFilter::All, SourceFilter::Chat, SourceFilter::Client("c1".into())] {
            assert_eq!(SourceFilter::from_value(&source.to_value()), source);
        }
        for status in [StatusFilter::Pending, StatusFilter::Decided, StatusFilter::Expired, StatusFilter::All] {
            assert_eq!(StatusFilter::from_value(status.to_value()), status);
        }
    }
}
