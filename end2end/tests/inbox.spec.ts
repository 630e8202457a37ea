// The inbox in the browser: an outside client (registered through the person's API, speaking HTTP
// with its own token) asks for approvals; they show in /inbox with the sidebar badge and the title
// count, open full screen with highlighted code, and the client receives the decision, edited code
// included. The keyboard decides (j/k/a/d/Enter), chat approvals are decided there too and their
// runs go on, a batch stays within one run, and a notification comes while the tab is hidden.
//
// The server is shared with the other specs, so counts are read before and compared after, and
// each test registers a client of its own.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import * as fs from "node:fs";
import { TOKEN } from "../fixtures/access";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble, workspacePath, newClient } from "./helpers";

const person = { Authorization: `Bearer ${TOKEN}` };

/** Sends a security evaluation over HTTP with the client's token; Warden's id of it. */
async function askToRun(
  request: APIRequestContext,
  token: string,
  id: string,
  code: string,
  explanation: string,
  risk = "medium",
): Promise<string> {
  const res = await request.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${token}` },
    data: { type: "security_evaluation", id, code, language: "python", explanation, risk_level: risk },
  });
  expect(res.status(), "stored and waiting").toBe(202);
  const ack = await res.json();
  expect(ack).toMatchObject({ type: "ack", id });
  return ack.request_id;
}

/** What the client hears: the long-poll of its request's decision. */
async function decisionOf(request: APIRequestContext, token: string, requestId: string): Promise<Record<string, unknown>> {
  const res = await request.get(`/api/outside/requests/${requestId}/decision?wait=30`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status(), "decided").toBe(200);
  return res.json();
}

/** Approvals pending right now, chat and outside, as the person's API lists them. */
async function pendingCount(request: APIRequestContext): Promise<number> {
  const chat = await (await request.get("/api/approvals?status=pending", { headers: person })).json();
  const outside = await (await request.get("/api/outside/requests?status=pending", { headers: person })).json();
  return chat.length + outside.length;
}

function inboxLink(page: Page) {
  return page.getByRole("navigation", { name: "Threads" }).getByRole("link", { name: /^Inbox/ });
}

function item(page: Page, name: string | RegExp) {
  return page.getByRole("list", { name: "Approvals" }).getByRole("article", { name });
}

/** Shows only this client's requests. */
async function onlyClient(page: Page, name: string): Promise<void> {
  await page.getByLabel("Source").selectOption({ label: `Client: ${name}` });
}

test("an outside request shows with a badge and a title count, and its approval in the full view reaches the client", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  const { name, token } = await newClient(request, "runner");
  await openHydrated(page, "/inbox");
  const before = await pendingCount(request);
  const code = "import shutil\nshutil.rmtree('build')  # <script>alert(1)</script>\n";
  const id = await askToRun(request, token, "e2e-full-1", code, "Removes the build folder", "high");

  const waiting = item(page, `Security evaluation from ${name}`);
  await expect(waiting).toBeVisible();
  await expect(waiting).toContainText("Removes the build folder");
  await expect(waiting).toContainText(name);
  await expect(waiting.locator(".client-risk")).toContainText(/high/i);
  await expect(waiting.getByText(/^Times out in [12]:\d\d$/)).toBeVisible();
  // The code is shown open while it waits (as text: the tag in it is no element).
  await expect(waiting.locator("details.inbox-code")).toHaveAttribute("open", "");
  await expect(waiting.locator("details.inbox-code pre")).toContainText("shutil.rmtree('build')  # <script>");
  await expect(waiting.locator("details.inbox-code script")).toHaveCount(0);
  await expect(inboxLink(page)).toContainText(`${before + 1} waiting`);
  await expect(page).toHaveTitle(new RegExp(`^\\(${before + 1}\\) `));

  // Extend gives it two more minutes.
  await waiting.getByRole("button", { name: "Extend by 2 minutes" }).click();
  await expect(waiting.getByText(/^Times out in [34]:\d\d$/)).toBeVisible();

  await waiting.getByRole("link", { name: "Open full screen" }).click();
  await page.waitForURL(`**/approvals/${id}`);
  await expect(page.getByRole("heading", { level: 1, name: `Security evaluation from ${name}` })).toBeVisible();
  const codePanel = page.getByRole("tabpanel", { name: "Code" });
  await expect(codePanel.locator("span.hl-keyword", { hasText: "import" })).toBeVisible();
  await expect(codePanel).toContainText("<script>alert(1)</script>");
  await expect(codePanel.locator("script")).toHaveCount(0);
  await expect(codePanel).toContainText("Highlighted as Python");
  await page.getByRole("tab", { name: "Explanation" }).click();
  await expect(page.getByRole("tabpanel", { name: "Explanation" })).toContainText("Removes the build folder");
  await expect(codePanel).toBeHidden();
  await page.getByRole("tab", { name: "Output" }).click();
  await expect(page.getByRole("tabpanel", { name: "Output" })).toContainText("No output");

  const decide = page.getByRole("region", { name: "Decision" });
  await decide.getByRole("button", { name: "Edit", exact: true }).click();
  await decide.getByRole("textbox", { name: "Code to run instead" }).fill("print('dry run')\n");
  await decide.getByRole("button", { name: "Approve with edits" }).click();
  await expect(page.getByText("Approved by you with edited code")).toBeVisible();
  await expect(decide).toHaveCount(0);

  const decision = await decisionOf(request, token, id);
  expect(decision).toMatchObject({
    type: "decision",
    id: "e2e-full-1",
    request_id: id,
    decision: "approved",
    edited_code: "print('dry run')\n",
    decided_by: { kind: "person" },
  });
  await expect(inboxLink(page)).not.toContainText(`${before + 1} waiting`);
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});

test("the keyboard moves with j and k, approves with a, denies with d and opens with Enter", async ({ page, request }) => {
  const { name, token } = await newClient(request, "keys");
  const first = await askToRun(request, token, "k1", "print(1)\n", "first");
  const second = await askToRun(request, token, "k2", "print(2)\n", "second");
  const third = await askToRun(request, token, "k3", "print(3)\n", "third");
  await openHydrated(page, "/inbox");
  await onlyClient(page, name);
  const items = page.getByRole("list", { name: "Approvals" }).getByRole("article");
  await expect(items).toHaveCount(3);
  // The shortcuts are listed on the page.
  const shortcuts = page.getByRole("region", { name: "Keyboard shortcuts" });
  for (const key of ["j", "k", "a", "d", "Enter"]) await expect(shortcuts.locator("kbd", { hasText: new RegExp(`^${key}$`) })).toBeVisible();

  // Newest first: third, second, first.
  await page.keyboard.press("j");
  await expect(items.nth(0)).toBeFocused();
  await expect(items.nth(0)).toContainText("third");
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(items.nth(2)).toBeFocused();
  await page.keyboard.press("k");
  await expect(items.nth(1)).toBeFocused();
  await expect(items.nth(1)).toContainText("second");

  await page.keyboard.press("a");
  expect(await decisionOf(request, token, second)).toMatchObject({ id: "k2", decision: "approved", decided_by: { kind: "person" } });
  await expect(items).toHaveCount(2);
  // The focus stays in the list, on the item now in that place.
  await expect(items.nth(1)).toBeFocused();
  await expect(items.nth(1)).toContainText("first");
  await page.keyboard.press("d");
  expect(await decisionOf(request, token, first)).toMatchObject({ id: "k1", decision: "rejected" });
  await expect(items).toHaveCount(1);

  await expect(items.nth(0)).toBeFocused();
  await page.keyboard.press("Enter");
  await page.waitForURL(`**/approvals/${third}`);
  await expect(page.getByRole("heading", { level: 1, name: `Security evaluation from ${name}` })).toBeVisible();
});

test("a chat approval shows in the inbox, is approved there, and its run goes on", async ({ page }) => {
  const note = workspacePath("inbox-note.txt");
  fs.rmSync(note, { force: true });
  await startChat(page, "An inbox approval please");
  await expect(approvalCard(page)).toBeVisible();
  const chatUrl = page.url();

  await openHydrated(page, "/inbox");
  await page.getByLabel("Source").selectOption("chat");
  const waiting = item(page, /inbox-note\.txt/);
  await expect(waiting).toBeVisible();
  await expect(waiting).toContainText("From a chat");
  // What it would write is in view before anything is decided.
  await expect(waiting.locator("details.inbox-preview")).toHaveAttribute("open", "");
  await expect(waiting.locator("details.inbox-preview")).toContainText("+from the inbox");
  await expect(waiting.getByRole("link", { name: "Open the thread" })).toHaveAttribute("href", new URL(chatUrl).pathname);
  await waiting.getByRole("button", { name: "Approve" }).click();
  await expect(waiting).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: "Approved:" })).toContainText("inbox-note.txt");

  await openHydrated(page, chatUrl);
  await expect(answer(page, "Written from the inbox.")).toContainText("[tool said: Wrote 15 bytes to inbox-note.txt (new file)]");
  expect(fs.readFileSync(note, "utf8")).toBe("from the inbox\n");
  await expect(page.getByText("Approved by you")).toBeVisible();
});

test("a batch decision spans runs, threads and clients: two chats' calls and a client's request are approved together", async ({
  page,
  request,
}) => {
  for (const file of ["batch-one.txt", "batch-two.txt", "batch-three.txt"]) fs.rmSync(workspacePath(file), { force: true });
  const { token } = await newClient(request, "batch");
  await startChat(page, "Make two inbox writes");
  await expect(approvalCard(page)).toHaveCount(2);
  const chatUrl = page.url();
  await startChat(page, "Please make the third batch write");
  await expect(approvalCard(page)).toHaveCount(1);
  const otherChatUrl = page.url();
  const outsideId = await askToRun(request, token, "b1", "print('b')\n", "batch outsider");

  await openHydrated(page, "/inbox");
  const one = item(page, /batch-one\.txt/);
  const two = item(page, /batch-two\.txt/);
  const three = item(page, /batch-three\.txt/);
  const outsider = page.getByRole("article").filter({ hasText: "batch outsider" });
  for (const entry of [one, two, three, outsider]) await entry.getByRole("checkbox", { name: /^Select/ }).check();
  const bar = page.getByRole("region", { name: "Batch decision" });
  await expect(bar).toContainText("4 selected, from 2 runs and 1 client");
  await bar.getByRole("button", { name: "Approve selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Approved 4 of 4 selected" })).toBeVisible();
  for (const entry of [one, two, three, outsider]) await expect(entry).toHaveCount(0);

  await openHydrated(page, chatUrl);
  await expect(answer(page, "Both batch files are written.")).toBeVisible();
  await openHydrated(page, otherChatUrl);
  await expect(answer(page, "The third batch file is written.")).toContainText("Wrote 6 bytes to batch-three.txt");
  expect(fs.readFileSync(workspacePath("batch-one.txt"), "utf8")).toBe("one\n");
  expect(fs.readFileSync(workspacePath("batch-two.txt"), "utf8")).toBe("two\n");
  expect(fs.readFileSync(workspacePath("batch-three.txt"), "utf8")).toBe("three\n");
  const res = await request.get(`/api/outside/requests/${outsideId}`, { headers: person });
  expect((await res.json()).status).toBe("approved");
});

test("notifications are asked for only by the button, and one comes for a new approval while the tab is hidden", async ({
  page,
  request,
}) => {
  // The browser's Notification API and a hidden tab, as a recording stand-in: headless Chromium
  // shows no notifications, and a test cannot hide its own tab.
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    const shown: { title: string; body?: string }[] = [];
    w.__shown = shown;
    w.__asked = 0;
    class RecordingNotification {
      static permission = "default";
      static async requestPermission() {
        w.__asked = (w.__asked as number) + 1;
        RecordingNotification.permission = "granted";
        return "granted";
      }
      onclick: unknown = null;
      constructor(title: string, options?: { body?: string }) {
        shown.push({ title, body: options?.body });
      }
    }
    w.Notification = RecordingNotification;
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  });
  const { name, token } = await newClient(request, "notify");
  await openHydrated(page, "/inbox");
  const ask = page.getByRole("button", { name: "Notify me of new approvals" });
  await expect(ask).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked), "not asked on load").toBe(0);
  await ask.click();
  await expect(page.getByText("Notifications are on")).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(1);

  await askToRun(request, token, "n1", "print('n')\n", "notify me");
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown))
    .toContainEqual({ title: "Warden: an outside request waits for your approval", body: `Security evaluation from ${name}` });
});
