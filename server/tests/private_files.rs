//! Warden's files on disk are its user's alone: the real `warden-server` binary, started on a data dir
//! an older Warden left open to everyone (0755 folders, 0644 files) and then written to, leaves every
//! folder in it 0700 and every file 0600 (the database, its `-wal` and `-shm`, kept results), the
//! person's workspace as it was; and a database that `WARDEN_DATABASE_URL` puts elsewhere is made 0600
//! in a 0700 folder.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use reqwest::Method;
use serde_json::json;

use crate::common::process::ServerProcess as Server;
use crate::common::{client, send_json};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every path below `dir` but `skip`, `dir` included.
fn walk(dir: &Path, skip: &Path, out: &mut Vec<PathBuf>) {
    if dir == skip {
        return;
    }
    out.push(dir.to_path_buf());
    if std::fs::symlink_metadata(dir).unwrap().is_dir() {
        for entry in std::fs::read_dir(dir).unwrap() {
            walk(&entry.unwrap().path(), skip, out);
        }
    }
}

/// Some writes through the API: threads made, renamed and archived.
async fn write_some(base: &str) {
    let http = client();
    for n in 0..5 {
        let (status, thread) =
            send_json(&http, Method::POST, format!("{base}/api/threads"), Some(json!({ "title": format!("t{n}") })))
                .await;
        assert_eq!(status, 201, "{thread}");
        let id = thread["id"].as_str().unwrap();
        let patch = json!({ "title": format!("renamed {n} sk-private-files-test"), "archived": n % 2 == 0 });
        let (status, _) = send_json(&http, Method::PATCH, format!("{base}/api/threads/{id}"), Some(patch)).await;
        assert_eq!(status, 200);
    }
}

/// Each of `paths` with a mode that lets the group or others in.
fn open_to_others(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().filter(|p| mode(p) & 0o077 != 0).map(|p| format!("{} {:o}", p.display(), mode(p))).collect()
}

#[tokio::test]
async fn every_file_warden_keeps_is_private_to_its_user_after_writes() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let workspace = data.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(data.join("mcp-results/files")).unwrap();
    std::fs::write(data.join("mcp-results/files/20260101-1.json"), "a result kept by an older Warden").unwrap();
    std::fs::write(workspace.join("mine.txt"), "the person's").unwrap();
    for dir in [&data, &data.join("mcp-results"), &data.join("mcp-results/files"), &workspace] {
        set_mode(dir, 0o755);
    }
    set_mode(&data.join("mcp-results/files/20260101-1.json"), 0o644);
    set_mode(&workspace.join("mine.txt"), 0o644);

    let server = Server::start(&data, &[]).await;
    write_some(&server.base).await;
    let mut paths = Vec::new();
    walk(&data, &workspace, &mut paths);
    for file in ["warden.db", "warden.db-wal", "warden.db-shm"] {
        assert!(paths.contains(&data.join(file)), "{file} is not there: {paths:?}");
    }
    assert_eq!(open_to_others(&paths), Vec::<String>::new(), "open to other users in the data dir");
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join("warden.db")), 0o600);
    // The person's workspace keeps its modes.
    assert_eq!((mode(&workspace), mode(&workspace.join("mine.txt"))), (0o755, 0o644));
    drop(server);

    // The database elsewhere, in a folder that does not exist yet; the data dir does not either.
    let data = root.path().join("fresh-data");
    let db = root.path().join("db").join("warden.db");
    let url = format!("sqlite://{}?mode=rwc", db.display());
    let server = Server::start(&data, &[("WARDEN_DATABASE_URL", url)]).await;
    write_some(&server.base).await;
    let mut paths = Vec::new();
    walk(&data, &data.join("workspace"), &mut paths);
    walk(db.parent().unwrap(), Path::new("/nothing-skipped"), &mut paths);
    for file in ["warden.db", "warden.db-wal", "warden.db-shm"] {
        assert!(paths.contains(&db.with_file_name(file)), "{file} is not there: {paths:?}");
    }
    assert_eq!(open_to_others(&paths), Vec::<String>::new(), "open to other users");
    assert_eq!((mode(&data), mode(db.parent().unwrap())), (0o700, 0o700));
}
