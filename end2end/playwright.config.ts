// Browser tests against the real server binary, a fresh SQLite data dir and the scripted fixture model.
// scripts/test.sh builds them once in the dev profile (`cargo test`, then `cargo xtask site` for the site);
// WARDEN_E2E_PROFILE=release runs a release build instead (`cargo xtask site --release` and
// `cargo build --release -p warden-server -p warden-testkit`).
import { defineConfig, devices } from "@playwright/test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TOKEN } from "./fixtures/access";
import { KEYED_MODEL_KEY, KEYED_MODEL_PORT, MODEL_PORT } from "./fixtures/models";

const repo = path.resolve(__dirname, "..");
const appPort = Number(process.env.WARDEN_E2E_PORT ?? 3010);
const modelPort = MODEL_PORT;
const keyedModelPort = KEYED_MODEL_PORT;
// Binaries and the site live in cargo's target dir (CARGO_TARGET_DIR when set; a relative one is taken
// from the checkout, as cargo takes it there), the site in its `site` folder (`cargo xtask site`).
const cargoTarget = path.resolve(repo, process.env.CARGO_TARGET_DIR ?? "target");
const siteRoot = path.join(cargoTarget, "site");
// Set here for the tests too (restart.spec.ts starts the same binary).
const profile = (process.env.WARDEN_E2E_PROFILE ??= "debug");
if (profile !== "debug" && profile !== "release") {
  throw new Error(`WARDEN_E2E_PROFILE=${profile}: use debug or release`);
}

/** The server binary: plain `cargo build` (or `cargo test`) output, given its LEPTOS_* settings below. */
function serverBinary(): string {
  const binary = path.join(cargoTarget, profile, "warden-server");
  const release = profile === "release" ? " --release" : "";
  if (!fs.existsSync(binary)) {
    throw new Error(`no ${binary}: run \`cargo build${release} -p warden-server\` (or scripts/test.sh) first`);
  }
  if (!fs.existsSync(path.join(siteRoot, "pkg", "warden.js"))) {
    throw new Error(`no site in ${siteRoot}: run \`cargo xtask site${release}\` first`);
  }
  return binary;
}

/** The fixture model binary if it is built (scripts/test.sh builds it), else built on the way. */
function fixtureModel(): string {
  const binary = path.join(cargoTarget, profile, "fixture-model");
  const release = profile === "release" ? " --release" : "";
  return fs.existsSync(binary) ? binary : `cargo run${release} --quiet -p warden-testkit --bin fixture-model --`;
}

// A fresh data dir per test run (the config is evaluated once in the main process).
const dataDir = process.env.WARDEN_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "warden-e2e-"));
// The signed-in browser state global-setup.ts saves after opening the sign-in link.
const authState = process.env.WARDEN_E2E_AUTH_STATE ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), "warden-e2e-auth-")), "state.json");

export default defineConfig({
  testDir: "./tests",
  // Separate per run when several runs share the checkout.
  outputDir: process.env.WARDEN_E2E_OUTPUT_DIR ?? "test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  // No retries: a test that fails once fails the run. (The hung page loads a retry once covered were two
  // faults of server rendering under concurrent requests, fixed in server/src/render_thread.rs and
  // render_arena.rs.)
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  // Runs after the web servers are up: signs in by the link and saves the session for every test.
  globalSetup: "./global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${appPort}`,
    storageState: authState,
    trace: "retain-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        },
      },
    },
  ],
  webServer: [
    {
      command: `${fixtureModel()} --script end2end/fixtures/script.json --port ${modelPort}`,
      cwd: repo,
      url: `http://127.0.0.1:${modelPort}/v1/models`,
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
    {
      command: `${fixtureModel()} --script end2end/fixtures/script.json --port ${keyedModelPort} --api-key ${KEYED_MODEL_KEY}`,
      cwd: repo,
      // Any answer will do (a 401 without the key): it is up.
      url: `http://127.0.0.1:${keyedModelPort}/v1/models`,
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
    {
      command: serverBinary(),
      cwd: repo,
      url: `http://127.0.0.1:${appPort}/api/health`,
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: "pipe",
      env: {
        LEPTOS_OUTPUT_NAME: "warden",
        LEPTOS_SITE_ROOT: siteRoot,
        LEPTOS_SITE_PKG_DIR: "pkg",
        LEPTOS_SITE_ADDR: `127.0.0.1:${appPort}`,
        LEPTOS_RELOAD_PORT: String(appPort + 1),
        LEPTOS_ENV: "PROD",
        OPENAI_BASE_URL: `http://127.0.0.1:${modelPort}/v1`,
        OPENAI_API_KEY: "fixture-key",
        WARDEN_MODEL: "fixture",
        WARDEN_DATA_DIR: dataDir,
        // Said outright (not left to the default) because tests check files there (helpers.ts workspacePath).
        WARDEN_WORKSPACE: path.join(dataDir, "workspace"),
        WARDEN_TOKEN: TOKEN,
        RUST_LOG: process.env.RUST_LOG ?? "warn,warden_engine=info",
      },
    },
  ],
});
