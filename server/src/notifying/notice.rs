//! The message about a request, as every channel renders it: who asks, what (the summary, the risk), how
//! long is left, the quorum, and the links.

use warden_notify::{LinkIntent, Notice, NoticeKind, NoticeLink};
use warden_types::approval::Verdict;
use warden_types::notification::NotificationReason;

use crate::request_view::RequestView;

/// Longest summary a message carries, in characters (the page shows the whole request).
const MAX_SUMMARY_CHARS: usize = 300;

pub fn for_request(view: &RequestView, reason: NotificationReason, links: &[(Verdict, String)], open: &str) -> Notice {
    let (kind, lead) = match reason {
        NotificationReason::Request => (NoticeKind::Request, "Approval needed"),
        NotificationReason::Reminder => (NoticeKind::Reminder, "Still waiting"),
        NotificationReason::Escalated => (NoticeKind::Escalated, "Nobody answered"),
    };
    let mut summary: String = view.summary.chars().take(MAX_SUMMARY_CHARS).collect();
    if summary.chars().count() < view.summary.chars().count() {
        summary.push('…');
    }
    let mut notice_links: Vec<NoticeLink> = links
        .iter()
        .map(|(intent, url)| match intent {
            Verdict::Approve => {
                NoticeLink { label: "Approve…".into(), url: url.clone(), intent: LinkIntent::Approve }
            }
            Verdict::Deny => NoticeLink { label: "Deny…".into(), url: url.clone(), intent: LinkIntent::Deny },
        })
        .collect();
    notice_links.push(NoticeLink { label: "Open in Warden".into(), url: open.to_string(), intent: LinkIntent::Open });
    Notice {
        kind,
        title: format!("{lead}: {}", view.title),
        asked_by: view.asked_by.clone(),
        summary,
        risk: view.risk,
        expires_at: view.expires_at.clone(),
        quorum: (view.route.quorum > 1).then(|| view.progress.clone()),
        links: notice_links,
    }
}
