// Shared steps for Warden's browser tests: open a page once it is interactive, start a chat from
// the welcome page, and fail a test when the page throws or opens a dialog.
import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import * as path from "node:path";
import { TOKEN } from "../fixtures/access";

/** Opens `url` and waits until the app has hydrated (the server-rendered page is interactive). */
export async function openHydrated(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
}

/** Types a prompt on the welcome page, sends it with Enter and waits for the chat page. */
export async function startChat(page: Page, prompt: string): Promise<void> {
  await openHydrated(page, "/");
  const box = page.getByRole("textbox", { name: "Your prompt" });
  await box.fill(prompt);
  await box.press("Enter");
  await page.waitForURL(/\/chat\/[^/]+$/);
}

/** Collects uncaught page errors, panics of the app's WASM (logged to the console, after which the
 * page stops reacting) and any dialog (alert/confirm) the page opens. */
export function watchForTrouble(page: Page): { errors: string[]; dialogs: string[] } {
  const seen = { errors: [] as string[], dialogs: [] as string[] };
  page.on("pageerror", (e) => seen.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && m.text().includes("panicked")) seen.errors.push(m.text());
  });
  page.on("dialog", async (d) => {
    seen.dialogs.push(d.message());
    await d.dismiss();
  });
  return seen;
}

/** The approval card waiting for a decision. */
export function approvalCard(page: Page): Locator {
  return page.getByRole("region", { name: /^Approval needed/ });
}

/** The sidebar entry of the open thread. */
export function activeThreadItem(page: Page): Locator {
  return page.getByRole("navigation", { name: "Threads" }).locator("li", { has: page.locator('a[aria-current="page"]') });
}

/** The model's stored answer that starts with `opening` (the scripted text; with `echo_tool_results`
 * the fixture model appends, after it, the tool results it was really sent). */
export function answer(page: Page, opening: string): Locator {
  return page.getByRole("list", { name: "Conversation" }).locator(".message.assistant").filter({ hasText: opening });
}

/** A path in the workspace of the server Playwright started (WARDEN_DATA_DIR/workspace, see
 * playwright.config.ts), so a test can check what a tool call did on disk. */
export function workspacePath(...parts: string[]): string {
  const dataDir = process.env.WARDEN_E2E_DATA_DIR;
  if (!dataDir) throw new Error("WARDEN_E2E_DATA_DIR is not set: run the tests through playwright.config.ts");
  return path.join(dataDir, "workspace", ...parts);
}

/** What the scripted model says a shell command answered: `output` (a regular expression source),
 * after the note Warden adds when a command ran without a sandbox, if it did. */
export function shellSaid(output: string): RegExp {
  return new RegExp(`\\[tool said: (?:\\[ran WITHOUT a sandbox[^\\]]*\\]\\s*)?${output}\\]`);
}

/** Registers an outside client through the person's API (its name `prefix` made unique): its id, name and token. */
export async function newClient(request: APIRequestContext, prefix: string): Promise<{ id: string; name: string; token: string }> {
  const name = `${prefix}-${Date.now()}`;
  const res = await request.post("/api/outside/clients", { headers: { Authorization: `Bearer ${TOKEN}` }, data: { name } });
  expect(res.status()).toBe(201);
  const body = await res.json();
  return { id: body.client.id, name, token: body.token };
}
