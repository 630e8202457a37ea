//! `fixture-model --script <path.json> [--port N] [--api-key K]`: runs the scripted model server for
//! browser tests until interrupted, printing its base URL on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use warden_testkit::{FixtureModel, Script};

struct Args {
    script: PathBuf,
    port: u16,
    api_key: Option<String>,
}

const USAGE: &str = "usage: fixture-model --script <path.json> [--port N] [--api-key K]";

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut script, mut port, mut api_key) = (None, 0u16, None);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--script" => script = Some(PathBuf::from(value()?)),
            "--port" => port = value()?.parse().map_err(|_| "--port needs a number from 0 to 65535".to_string())?,
            "--api-key" => api_key = Some(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let script = script.ok_or_else(|| format!("--script is required\n{USAGE}"))?;
    Ok(Args { script, port, api_key })
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let script = match Script::from_file(&args.script) {
        Ok(script) => script,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let model = match FixtureModel::start_on(script, args.api_key, args.port).await {
        Ok(model) => model,
        Err(e) => {
            eprintln!("cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    println!("fixture-model listening on {}", model.base_url());
    let _ = std::io::stdout().flush();
    if let Err(e) = tokio::signal::ctrl_c().await {
        eprintln!("cannot wait for Ctrl-C: {e}");
        return ExitCode::FAILURE;
    }
    drop(model);
    ExitCode::SUCCESS
}
