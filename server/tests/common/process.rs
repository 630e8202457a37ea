//! The real `warden-server` binary as a child process on a data dir of the test's, for tests that
//! kill it (SIGKILL) and start it again on the same SQLite file.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{client, TOKEN};

/// One `warden-server` process; killed with SIGKILL when dropped.
pub struct ServerProcess {
    child: Child,
    pub port: u16,
    pub base: String,
}

impl ServerProcess {
    /// Starts the binary on a free port with its data in `data` and `env` added (a model, say), and
    /// waits until it answers `/api/health`.
    pub async fn start(data: &Path, env: &[(&str, String)]) -> ServerProcess {
        Self::start_on(free_port(), data, env).await
    }

    /// `start`, listening on `port` (a restart on the port a killed process had).
    pub async fn start_on(port: u16, data: &Path, env: &[(&str, String)]) -> ServerProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden-server"));
        command
            .env("LEPTOS_OUTPUT_NAME", "warden")
            .env("LEPTOS_SITE_ROOT", data.join("site"))
            .env("LEPTOS_SITE_PKG_DIR", "pkg")
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
            .env("LEPTOS_RELOAD_PORT", (port + 1).to_string())
            .env("LEPTOS_ENV", "PROD")
            .env("WARDEN_DATA_DIR", data)
            .env("WARDEN_WORKSPACE", data.join("workspace"))
            .env("WARDEN_TOKEN", TOKEN)
            .env("RUST_LOG", "warn");
        for (name, value) in env {
            command.env(name, value);
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("warden-server starts");
        let server = ServerProcess { child, port, base: format!("http://127.0.0.1:{port}") };
        let http = client();
        let up = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                if http.get(format!("{}/api/health", server.base)).send().await.is_ok_and(|r| r.status().is_success()) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        assert!(up.is_ok(), "warden-server answered /api/health");
        server
    }

    /// SIGKILL: no shutdown code runs, batched writes not yet made are lost.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port()
}
