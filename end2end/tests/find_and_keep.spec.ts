// Issue 14's "find and keep" and keyboard in the browser: search from the sidebar (reached with `/`)
// finds a thread by the model's words with them marked; a pinned thread is listed under Pinned, also
// after a reload; a thread with a waiting approval carries a badge until it is decided; the shortcuts
// dialog opens with `?`, and an approval card with the focus is denied with `d`.
import * as fs from "node:fs";
import { expect, request as playwrightRequest, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { TOKEN } from "../fixtures/access";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

function sidebar(page: Page) {
  return page.getByRole("navigation", { name: "Threads" });
}

/** Takes the focus out of any field, so single-key shortcuts act. */
async function blur(page: Page): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}


test("`/` focuses the search, which finds a thread by the model's words and marks them", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Please remember the quokka for me");
  await expect(answer(page, "Quokkas live on")).toBeVisible();
  const url = page.url();
  const id = url.split("/chat/")[1];

  await openHydrated(page, "/settings");
  await blur(page);
  await page.keyboard.press("/");
  const box = page.getByRole("searchbox", { name: "Search threads" });
  await expect(box).toBeFocused();
  // Only the start of a word, and not the person's words: what the model answered is indexed.
  await box.pressSequentially("rottn");
  const results = page.getByRole("region", { name: "Search results" });
  // This test's thread (a run of the same test before may have left another).
  const hit = results.locator(`a[href^="/chat/${id}"]`);
  await expect(hit).toContainText("Quokka notes");
  await expect(hit.locator("mark")).toHaveText("Rottnest");
  await expect(hit).toContainText("Island, off Perth");
  // Words that are in no thread find nothing; query syntax typed is only text.
  await box.fill("rottnest zzzunfound");
  await expect(results.getByText("Nothing found.")).toBeVisible();
  await box.fill('"rottnest*');
  await expect(hit).toBeVisible();

  await hit.click();
  await expect(page).toHaveURL(new RegExp(`${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\?m=[^#]+#m-`));
  await expect(page.getByRole("heading", { name: "Quokka notes" })).toBeVisible();
  // Escape empties the box and the thread lists come back.
  await box.focus();
  await box.press("Escape");
  await expect(box).toHaveValue("");
  await expect(results).toHaveCount(0);
  await expect(sidebar(page).locator(`li.thread-item:has(a[href="/chat/${id}"])`)).toContainText("Quokka notes");
  expect(trouble.errors).toEqual([]);
});

test("a pinned thread is listed under Pinned, also after a reload, until it is unpinned", async ({ page }) => {
  await startChat(page, "Please say hello so it can be pinned");
  await expect(answer(page, "Hello from the fixture!")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Greeting chat" })).toBeVisible();
  const id = page.url().split("/chat/")[1];
  const row = sidebar(page).locator(`li.thread-item:has(a[href="/chat/${id}"])`);
  const pinnedHeading = sidebar(page).getByRole("heading", { name: "Pinned" });

  await row.getByRole("button", { name: "Pin Greeting chat" }).click();
  const pinnedRow = sidebar(page).locator(`h3:text("Pinned") + ul li.thread-item:has(a[href="/chat/${id}"])`);
  await expect(pinnedRow).toBeVisible();
  await page.reload();
  await expect(pinnedHeading).toBeVisible();
  await expect(pinnedRow).toBeVisible();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();

  await pinnedRow.getByRole("button", { name: "Unpin Greeting chat" }).click();
  await expect(pinnedRow).toHaveCount(0);
  await expect(row).toBeVisible();
});

test("a waiting approval puts a badge on its thread; `?` lists the shortcuts; `d` denies the focused card", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Show a badge and the keys");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  const id = page.url().split("/chat/")[1];
  const row = sidebar(page).locator(`li.thread-item:has(a[href="/chat/${id}"])`);
  await expect(row.locator(".thread-waiting")).toHaveText("1 approval waiting");

  // The shortcuts dialog, from the same tables the keys are read from.
  await blur(page);
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("row", { name: /Search the threads/ }).first()).toBeVisible();
  await expect(dialog.getByRole("row", { name: /Deny it/ })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  // `c` goes to the message box without typing a c.
  await page.keyboard.press("c");
  const composer = page.getByRole("textbox", { name: "Message" });
  await expect(composer).toBeFocused();
  await expect(composer).toHaveValue("");

  // The card with the focus: `d` denies it, with the reason typed.
  await card.getByLabel("Reason for denying (optional)").fill("not by keyboard today");
  await card.focus();
  await page.keyboard.press("d");
  await expect(answer(page, "Badge step done.")).toContainText("not by keyboard today");
  await expect(row.locator(".thread-waiting")).toHaveCount(0);
  expect(trouble.errors).toEqual([]);
});

test("a thread exports as Markdown and JSON, and the JSON imports back as a new thread with nothing to decide", async ({ page }, testInfo) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Export a badge and the keys");
  const card = approvalCard(page);
  await card.getByLabel("Reason for denying (optional)").fill("exported denial");
  await card.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(answer(page, "Badge step done.")).toContainText("exported denial");
  const originalUrl = page.url();

  const exports = page.getByRole("navigation", { name: "Export this thread" });
  const [markdownDownload] = await Promise.all([
    page.waitForEvent("download"),
    exports.getByRole("link", { name: "Export Markdown" }).click(),
  ]);
  const markdownPath = testInfo.outputPath("thread.md");
  await markdownDownload.saveAs(markdownPath);
  const markdown = fs.readFileSync(markdownPath, "utf8");
  expect(markdown).toContain("# Badge and keys");
  expect(markdown).toContain("denied by a person: exported denial");
  expect(markdown).toContain("Export a badge and the keys");

  const [jsonDownload] = await Promise.all([
    page.waitForEvent("download"),
    exports.getByRole("link", { name: "Export JSON" }).click(),
  ]);
  const jsonPath = testInfo.outputPath("thread.json");
  await jsonDownload.saveAs(jsonPath);
  const exported = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
  expect(exported.format).toBe("warden.thread.v1");
  expect(exported.approvals[0].decision).toMatchObject({ status: "denied", by: "user", reason: "exported denial" });

  // Imported: a new thread opens, the same conversation, marked imported, nothing waiting in it.
  // In Settings (the sidebar keeps to threads).
  await openHydrated(page, "/settings");
  await page.getByLabel("Import a thread (JSON)").setInputFiles(jsonPath);
  await page.waitForURL((url) => url.pathname.startsWith("/chat/") && url.href !== originalUrl);
  await expect(page.getByRole("heading", { name: "Badge and keys" })).toBeVisible();
  await expect(page.getByText(/^Imported on /)).toBeVisible();
  await expect(answer(page, "Badge step done.")).toContainText("exported denial");
  await expect(page.getByText("Denied by you: exported denial")).toBeVisible();
  await expect(approvalCard(page)).toHaveCount(0);

  // A file that is not an export is refused with a reason, and opens nothing.
  const bogus = testInfo.outputPath("bogus.json");
  fs.writeFileSync(bogus, JSON.stringify({ ...exported, format: "other.v9" }));
  await openHydrated(page, "/settings");
  const settingsUrl = page.url();
  await page.getByLabel("Import a thread (JSON)").setInputFiles(bogus);
  await expect(page.getByRole("region", { name: "Import a thread" }).getByRole("alert")).toContainText("format is `other.v9`");
  expect(page.url()).toBe(settingsUrl);
  expect(trouble.errors).toEqual([]);
});

test("a thread made with the client's own id opens with ?q= typed in (not sent), lists its runs and is named again on request", async ({ page }, testInfo) => {
  const trouble = watchForTrouble(page);
  const api = await playwrightRequest.newContext({
    baseURL: testInfo.project.use.baseURL,
    extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` },
  });
  const id = randomUUID();
  const made = await api.post("/api/threads", { data: { id, title: "Chosen id thread" } });
  expect(made.status()).toBe(201);
  expect((await api.post("/api/threads", { data: { id } })).status()).toBe(200);

  await openHydrated(page, `/chat/${id}?q=${encodeURIComponent("Please say hello from the address")}`);
  const box = page.getByRole("textbox", { name: "Message" });
  await expect(box).toHaveValue("Please say hello from the address");
  await expect(box).toBeFocused();
  // Typed in, not sent: nothing ran, and the prompt left the address.
  expect(new URL(page.url()).search).toBe("");
  expect(await (await api.get(`/api/threads/${id}/runs`)).json()).toEqual([]);

  await box.press("Enter");
  await expect(answer(page, "Hello from the fixture!")).toBeVisible();
  const runs = await (await api.get(`/api/threads/${id}/runs`)).json();
  expect(runs).toHaveLength(1);
  // A person's title stays; asked for, the model names it after what was said.
  await expect(page.getByRole("heading", { name: "Chosen id thread" })).toBeVisible();
  await page.getByRole("button", { name: "Suggest a title" }).click();
  await expect(page.getByRole("heading", { name: "Greeting chat" })).toBeVisible();
  await expect(sidebar(page).locator(`a[href="/chat/${id}"]`)).toHaveText("Greeting chat");
  await api.dispose();
  expect(trouble.errors).toEqual([]);
});
