// Out of the box: a fresh data dir with no provider configured chats with the built-in model. The
// server gets no model settings at all; the GGUF file sits where scripts/dev.sh puts it
// (<data dir>/models/, here a link to the copy scripts/test.sh fetched into target/models/).
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { signInLink } from "../fixtures/access";
import { cargoTarget, healthy, startServer, stop } from "../fixtures/own-server";

const port = Number(process.env.WARDEN_E2E_PORT ?? 3010) + 40;
const base = `http://127.0.0.1:${port}`;
const modelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";

test("with no provider configured, a question is answered by the built-in model", async ({ page }) => {
  const fetched = path.join(cargoTarget, "models", modelFile);
  expect(fs.existsSync(fetched), `no ${fetched}: run scripts/fetch-model.sh target/models`).toBe(true);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "warden-local-"));
  fs.mkdirSync(path.join(dataDir, "models"));
  fs.symlinkSync(fetched, path.join(dataDir, "models", modelFile));
  const server = startServer(port, dataDir, {});
  try {
    await healthy(base);
    await page.goto(signInLink(base));
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    // The welcome page says which model answers, and what it cannot do.
    await expect(page.getByText(/SmolLM2-135M-Instruct/).first()).toBeVisible();
    await expect(page.getByText(/seldom picks the right tool/)).toBeVisible();
    const box = page.getByRole("textbox", { name: "Your prompt" });
    await box.fill("What is the capital of France? Answer in one sentence.");
    await box.press("Enter");
    await page.waitForURL(/\/chat\/[^/]+$/);
    const reply = page.getByRole("list", { name: "Conversation" }).locator(".message.assistant").last();
    // The answer depends on the question the product sent: nothing scripted here.
    await expect(reply).toContainText("Paris", { timeout: 60_000 });
  } finally {
    await stop(server);
  }
});
