//! Serves a router over HTTP/1.1 with bounds `axum::serve` lacks: a client must finish sending its
//! request headers within `header_read_timeout` (a connection that trickles or sends nothing is
//! closed), TCP_NODELAY for prompt SSE writes, and graceful shutdown that lets answers in flight end.
//! Connections may be upgraded (the outside approvals' WebSocket); an upgraded socket is its
//! handler's, which ends it at shutdown.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The header-read timeout of the real server.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long shutdown waits for open connections before giving up on them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub header_read_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self { header_read_timeout: HEADER_READ_TIMEOUT }
    }
}

/// Accepts connections on `listener` until `shutdown` resolves, then waits for open connections.
pub async fn serve(listener: TcpListener, app: Router, options: ServeOptions, shutdown: impl Future<Output = ()>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(options.header_read_timeout);
    // hyper-util's `GracefulShutdown` cannot watch an upgradeable HTTP/1 connection: the same, by hand.
    let draining = CancellationToken::new();
    let connections = TaskTracker::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(error) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small SSE writes go out at once instead of waiting on delayed ACKs.
        let _ = stream.set_nodelay(true);
        // The peer's address goes with each request (where a browser signed in from).
        let service =
            tower::ServiceExt::map_request(app.clone(), move |mut request: hyper::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
                request
            });
        let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)).with_upgrades();
        let draining = draining.clone();
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = draining.cancelled() => {
                    // Ends the connection after the answer in flight, if any.
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.close();
    draining.cancel();
    if tokio::time::timeout(DRAIN_TIMEOUT, connections.wait()).await.is_err() {
        tracing::warn!("connections still open after {DRAIN_TIMEOUT:?}; stopping anyway");
    }
}
