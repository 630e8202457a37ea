//! Two real HTTP servers for redirect tests: [`HeaderRecorder`] answers every request with 200 and keeps
//! its headers, and [`Redirector`] answers every request with a redirect (307 by default) to another
//! address, such as a recorder on another port. A client that follows the redirect shows up in the
//! recorder with whatever headers it carried there.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, DropGuard};

/// A [`HeaderRecorder`] redirects what comes under this path to the rest of the path on itself.
pub const SAME_ORIGIN_PREFIX: &str = "/moved-here";

/// Keeps the headers of every request it gets (answered `200 {}`), on 127.0.0.1 and a port of its own.
pub struct HeaderRecorder {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<HeaderMap>>>,
    _stop: DropGuard,
}

impl HeaderRecorder {
    pub async fn start() -> std::io::Result<Self> {
        let seen: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
        let app = Router::new().fallback(record).with_state(seen.clone());
        let (addr, stop) = serve(app).await?;
        Ok(Self { addr, seen, _stop: stop })
    }

    /// `http://127.0.0.1:<port>` with `path` after it.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The headers of each request received so far, in order.
    pub fn requests(&self) -> Vec<HeaderMap> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// A path under [`SAME_ORIGIN_PREFIX`] is redirected (307) to the rest of it on the same server.
async fn record(State(seen): State<Arc<Mutex<Vec<HeaderMap>>>>, request: Request) -> Response {
    if let Some(rest) = request.uri().path().strip_prefix(SAME_ORIGIN_PREFIX) {
        return (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, rest.to_string())]).into_response();
    }
    seen.lock().unwrap_or_else(PoisonError::into_inner).push(request.headers().clone());
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], "{}").into_response()
}

/// Answers every request with `status` and `Location: <to>`, on 127.0.0.1 and a port of its own.
pub struct Redirector {
    addr: SocketAddr,
    hits: Arc<Mutex<usize>>,
    _stop: DropGuard,
}

impl Redirector {
    /// A 307 (which keeps the method and body, as a POST to a model would) to `to`.
    pub async fn start(to: &str) -> std::io::Result<Self> {
        Self::start_with(StatusCode::TEMPORARY_REDIRECT, to).await
    }

    pub async fn start_with(status: StatusCode, to: &str) -> std::io::Result<Self> {
        let hits: Arc<Mutex<usize>> = Arc::default();
        let to = to.to_string();
        let counted = hits.clone();
        let app = Router::new().fallback(move || {
            let to = to.clone();
            let counted = counted.clone();
            async move {
                *counted.lock().unwrap_or_else(PoisonError::into_inner) += 1;
                (status, [(header::LOCATION, to)]).into_response()
            }
        });
        let (addr, stop) = serve(app).await?;
        Ok(Self { addr, hits, _stop: stop })
    }

    /// `http://127.0.0.1:<port>` with `path` after it.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// How many requests it redirected.
    pub fn hits(&self) -> usize {
        *self.hits.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn serve(app: Router) -> std::io::Result<(SocketAddr, DropGuard)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let stop = CancellationToken::new();
    let until = stop.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).with_graceful_shutdown(until.cancelled_owned()).await;
    });
    Ok((addr, stop.drop_guard()))
}
