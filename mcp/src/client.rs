//! Warden's side of an MCP session (rmcp `ClientHandler`): routes progress notifications to the
//! call that asked for them and wakes the supervisor when the server's tool list changes.

use std::sync::Arc;

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam, ProtocolVersion};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::ClientHandler;
use tokio::sync::Notify;

/// One per connection.
#[derive(Debug, Default)]
pub struct WardenClient {
    pub progress: ProgressDispatcher,
    pub tools_changed: Arc<Notify>,
}

impl ClientHandler for WardenClient {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.handle_notification(params).await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("warden", env!("CARGO_PKG_VERSION")))
            // The newest version with an `initialize` handshake: every server we meet speaks it.
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}
