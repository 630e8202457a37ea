// A pending approval survives a restart of the server process: this test runs its own warden-server
// (same binary, its own SQLite data dir, the shared fixture model), stops it while a card is pending,
// starts a new process on the same data, and approves from the reloaded page.
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { answer, approvalCard } from "./helpers";
import { signInLink } from "../fixtures/access";
import { healthy, startServer, stop } from "../fixtures/own-server";

const port = Number(process.env.WARDEN_E2E_PORT ?? 3010) + 20;
const modelPort = Number(process.env.WARDEN_E2E_MODEL_PORT ?? 3999);
const base = `http://127.0.0.1:${port}`;
const fixtureModel = { OPENAI_BASE_URL: `http://127.0.0.1:${modelPort}/v1`, OPENAI_API_KEY: "fixture-key", WARDEN_MODEL: "fixture" };

test("a pending approval survives a server restart and approving it finishes the run", async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "warden-restart-"));
  let server = startServer(port, dataDir, fixtureModel);
  try {
    await healthy(base);
    // This server is on its own port, so its session cookie is its own: sign in by its link.
    await page.goto(signInLink(base));
    await expect(page).toHaveURL(`${base}/`);
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    const box = page.getByRole("textbox", { name: "Your prompt" });
    await box.fill("Please write a note");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/[^/]+$/);
    await expect(approvalCard(page)).toBeVisible();

    await stop(server);
    server = startServer(port, dataDir, fixtureModel);
    await healthy(base);

    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    const card = approvalCard(page);
    await expect(card).toContainText("note.txt");
    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(answer(page, "The note is written.")).toContainText("[tool said: Wrote 11 bytes to note.txt (new file)]");
    expect(fs.readFileSync(path.join(dataDir, "workspace", "note.txt"), "utf8")).toBe("hello note\n");
  } finally {
    await stop(server);
  }
});
