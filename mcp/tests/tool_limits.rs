//! A server that lists more tools than Warden takes (the real fixture over stdio): at most
//! `MAX_TOOLS_PER_SERVER` are kept, at most `MAX_TOOL_PAGES` pages are read, and the server's status
//! (and a connection test) says that the rest were left out.

use crate::common::*;
use warden_mcp::{MAX_TOOLS_PER_SERVER, MAX_TOOL_PAGES};

#[tokio::test]
async fn a_server_listing_100000_tools_keeps_the_first_thousand_and_says_so() {
    let (hub, _dir) = hub().await;
    let config = stdio_config("crowded", &["--many-tools", "100000"]);
    let probe = hub.test_connection(config.clone()).await.expect("connects");
    assert_eq!(probe.tools.len(), MAX_TOOLS_PER_SERVER);
    let notice = probe.tools_notice.expect("a notice");
    assert!(notice.contains("more than 1000 tools") && notice.contains("left the rest out"), "{notice}");

    hub.upsert(config).await.expect("saved");
    let status = wait_connected(&hub, "crowded").await;
    assert_eq!(status.tools.len(), MAX_TOOLS_PER_SERVER);
    assert!(status.tools.iter().any(|t| t.name == "echo"), "the server's own tools come first");
    assert_eq!(status.tools_notice.as_deref(), Some(notice.as_str()));
    assert_eq!(hub.tools().len(), MAX_TOOLS_PER_SERVER, "the model is offered those alone");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_tool_list_of_endless_pages_is_read_for_200_pages_and_no_more() {
    let (hub, _dir) = hub().await;
    let probe = hub.test_connection(stdio_config("paged", &["--many-tools", "5000", "--page-size", "1"])).await;
    let probe = probe.expect("connects");
    assert_eq!(probe.tools.len(), MAX_TOOL_PAGES);
    let notice = probe.tools_notice.expect("a notice");
    assert!(notice.contains("past 200 pages"), "{notice}");

    // A server within the bounds, paged or not, lists everything with no notice.
    let probe = hub.test_connection(stdio_config("small", &["--many-tools", "30", "--page-size", "7"])).await;
    let probe = probe.expect("connects");
    assert!(probe.tools.len() > 30 && probe.tools.len() < 60, "{}", probe.tools.len());
    assert_eq!(probe.tools_notice, None);
    hub.shutdown().await;
}
