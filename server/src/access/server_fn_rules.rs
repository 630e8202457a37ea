//! What each of the app's server functions asks of the person calling it. The gate looks the function up
//! here by its path before it runs: a server function missing from this table is refused to everyone (and
//! the role tests, which walk the server function registry, fail on it).

use std::collections::HashMap;
use std::sync::LazyLock;

use leptos::server_fn::ServerFn;
use warden_app::server_fns::{
    approvals, audit, connection_checks, inbox, mcp, notifications, outside, outside_executors, outside_linked, people,
    policies, providers, runs, sent, sessions, sharing, threads,
};

use super::roles::Need;

/// Every server function's path, with its rule.
pub fn rules() -> &'static HashMap<&'static str, Need> {
    static RULES: LazyLock<HashMap<&'static str, Need>> = LazyLock::new(|| table().into_iter().collect());
    &RULES
}

/// The rule of the server function at `path`; `None` for a path that is not one, or one nobody gave a rule.
pub fn need(path: &str) -> Option<Need> {
    rules().get(path).copied()
}

fn table() -> Vec<(&'static str, Need)> {
    use Need::{Chat, Decide, Manage, SignedIn};
    vec![
        (approvals::DecideApproval::PATH, Decide),
        (approvals::PreviewEdit::PATH, Decide),
        (audit::ReadAuditLog::PATH, Manage),
        (connection_checks::DecideConnectionCheck::PATH, Decide),
        (inbox::DecideBatch::PATH, Decide),
        (inbox::DecideOutside::PATH, Decide),
        (inbox::ExtendOutside::PATH, Decide),
        (inbox::GetOutsideRequest::PATH, SignedIn),
        (inbox::ListInbox::PATH, SignedIn),
        (sent::SentNotifications::PATH, SignedIn),
        (mcp::ExportMcpServers::PATH, Manage),
        (mcp::ImportMcpServers::PATH, Manage),
        (mcp::ListMcpServers::PATH, Manage),
        (mcp::ReconnectMcpServer::PATH, Manage),
        (mcp::RemoveMcpServer::PATH, Manage),
        (mcp::SaveMcpServer::PATH, Manage),
        (mcp::SetMcpEnabled::PATH, Manage),
        (mcp::SetMcpToolPolicy::PATH, Manage),
        (mcp::SetMcpTrustReadOnly::PATH, Manage),
        (mcp::TestMcpConnection::PATH, Manage),
        (notifications::DeleteChannel::PATH, SignedIn),
        (notifications::GetSmtp::PATH, Manage),
        (notifications::ListChannels::PATH, SignedIn),
        (notifications::ListSharedChannels::PATH, Manage),
        (notifications::RegisterPush::PATH, SignedIn),
        (notifications::SaveChannel::PATH, SignedIn),
        (notifications::SaveSmtp::PATH, Manage),
        (notifications::TestChannel::PATH, SignedIn),
        (notifications::TestSmtp::PATH, Manage),
        (notifications::UnregisterPush::PATH, SignedIn),
        (outside::CreateOutsideClient::PATH, Chat),
        (outside::ListOutsideClients::PATH, Chat),
        (outside::OutsidePolicy::PATH, SignedIn),
        (outside::RevokeOutsideClient::PATH, Chat),
        (outside::SetOutsideClientPolicy::PATH, Manage),
        (outside::SetOutsidePolicy::PATH, Manage),
        (outside_executors::AddOutsideExecutor::PATH, Manage),
        (outside_executors::ListOutsideExecutors::PATH, Manage),
        (outside_executors::RemoveOutsideExecutor::PATH, Manage),
        (outside_executors::SetOutsideExecutorEnabled::PATH, Manage),
        (outside_linked::LinkedOutsideRequests::PATH, SignedIn),
        (people::AdmitWaiting::PATH, Manage),
        (people::DisablePerson::PATH, Manage),
        (people::DismissWaiting::PATH, Manage),
        (people::EnablePerson::PATH, Manage),
        (people::InvitePerson::PATH, Manage),
        (people::ListInvitations::PATH, Manage),
        (people::ListOwnPasskeys::PATH, SignedIn),
        (people::ListPeople::PATH, Manage),
        (people::ListWaiting::PATH, Manage),
        (people::RemoveOwnPasskey::PATH, SignedIn),
        (people::SetOwnPassword::PATH, SignedIn),
        (people::SetPersonRole::PATH, Manage),
        (people::WhoAmI::PATH, SignedIn),
        (people::WithdrawInvitation::PATH, Manage),
        (policies::DeletePolicy::PATH, Manage),
        (policies::ListPolicies::PATH, Manage),
        (policies::ReorderPolicies::PATH, Manage),
        (policies::SavePolicy::PATH, Manage),
        (providers::ListProviders::PATH, SignedIn),
        (providers::RemoveProvider::PATH, Manage),
        (providers::SaveProvider::PATH, Manage),
        (providers::SetThreadModel::PATH, Chat),
        (providers::TestProvider::PATH, Manage),
        (providers::TestProviderEntry::PATH, Manage),
        (runs::EditMessage::PATH, Chat),
        (runs::RegenerateAnswer::PATH, Chat),
        (runs::RetryRun::PATH, Chat),
        (runs::RevokeRule::PATH, Chat),
        (runs::SendMessage::PATH, Chat),
        (runs::StartChat::PATH, Chat),
        (runs::StopRun::PATH, Chat),
        (runs::SwitchBranch::PATH, Chat),
        (sessions::ListSignedInBrowsers::PATH, SignedIn),
        (sessions::SignOutBrowser::PATH, SignedIn),
        (sessions::SignOutBrowsers::PATH, SignedIn),
        (sharing::GetSharing::PATH, SignedIn),
        (sharing::ListPeopleNames::PATH, Chat),
        (sharing::SetSharing::PATH, Chat),
        (threads::DeleteThread::PATH, Chat),
        (threads::EarlierMessages::PATH, SignedIn),
        (threads::GetModelStatus::PATH, SignedIn),
        (threads::GetThread::PATH, SignedIn),
        (threads::ImportThread::PATH, Chat),
        (threads::ListThreads::PATH, SignedIn),
        (threads::RegenerateTitle::PATH, Chat),
        (threads::RenameThread::PATH, Chat),
        (threads::SearchThreads::PATH, SignedIn),
        (threads::SetArchived::PATH, Chat),
        (threads::SetPinned::PATH, Chat),
        (threads::SetThreadOptions::PATH, Chat),
    ]
}
