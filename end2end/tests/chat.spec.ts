// The chat slice: a prompt becomes a thread with a streamed answer, history survives a reload,
// threads can be renamed, archived and deleted, a run can be stopped, a model error can be retried,
// and whatever the model writes is rendered inert.
import { expect, test } from "@playwright/test";
import { MODEL_PORT } from "../fixtures/models";
import { activeThreadItem, approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

test("a prompt from the welcome page opens a thread and the answer streams in", async ({ page, request }) => {
  const trouble = watchForTrouble(page);
  // The scripted model stops its answer after its first words until released, so the unfinished
  // answer can be seen without racing the stream.
  const streams = `http://127.0.0.1:${MODEL_PORT}/_fixture/streams`;
  expect((await request.post(`${streams}/hold`)).ok()).toBe(true);
  try {
    await startChat(page, "Please say hello");
    // Token by token: the unfinished answer is visible before it is complete.
    const streaming = page.locator(".streaming");
    await expect(streaming).toContainText("Hello from the fixture!");
    await expect(streaming).not.toContainText("That is all.");
  } finally {
    expect((await request.post(`${streams}/release`)).ok()).toBe(true);
  }
  await expect(page.getByText("That is all.")).toBeVisible();

  const answer = page.locator(".message.assistant").last();
  await expect(answer.locator("strong")).toHaveText("bold");
  await expect(answer.locator("pre code")).toContainText('println!("hi");');
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();

  // The model's title reaches the sidebar, where the open thread is marked.
  await expect(activeThreadItem(page).getByRole("link")).toHaveText("Greeting chat");
  expect(trouble.errors).toEqual([]);
});

test("the run ends with its answer, before the model's title, which reaches the sidebar and the heading later", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  const prompt = "Please say hello, named late";
  // The scripted model holds its titles back until released (the one request it is asked after the answer).
  const titles = `http://127.0.0.1:${MODEL_PORT}/_fixture/titles`;
  expect((await request.post(`${titles}/hold`)).ok()).toBe(true);
  try {
    await startChat(page, prompt);
    await expect(page.getByText("That is all.")).toBeVisible();
    // The run is over while the title is still to come: no Stop, the next message can be sent.
    await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
    await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(prompt);
    await expect(activeThreadItem(page).getByRole("link")).toHaveText(prompt);
  } finally {
    await request.post(`${titles}/release`);
  }
  // The run's stream has ended: the title comes over the page's live feed.
  await expect(activeThreadItem(page).getByRole("link")).toHaveText("Greeting chat");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Greeting chat");
  expect(trouble.errors).toEqual([]);
});

test("a title the model gave earlier does not come back over a rename when the chat is opened again", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "say hello, then be renamed");
  const sidebar = page.getByRole("navigation", { name: "Threads" });
  await expect(activeThreadItem(page).getByRole("link")).toHaveText("Greeting chat");
  const title = `Mine ${Date.now()}`;
  await activeThreadItem(page).getByRole("button", { name: /^Rename/ }).click();
  const input = sidebar.getByRole("textbox", { name: "New title" });
  await input.fill(title);
  await input.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);

  // Away and back within the page: the chat is drawn anew, with the stored title, not the told one.
  await sidebar.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL((u) => u.pathname === "/settings");
  await sidebar.getByRole("link", { name: title }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  await expect(page.getByText("That is all.")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  expect(trouble.errors).toEqual([]);
});

test("the history is rendered by the server and survives a reload", async ({ page }) => {
  await startChat(page, "say hello again, please");
  // Stored (not just streamed): the answer is part of the conversation and the run is over.
  await expect(page.getByRole("list", { name: "Conversation" }).getByText("That is all.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
  const url = page.url();

  // The page's own request context: it carries the browser's session cookie.
  const html = await (await page.request.get(url)).text();
  expect(html).toContain("say hello again, please");
  expect(html).toContain("That is all.");

  await openHydrated(page, url);
  await expect(page.getByText("say hello again, please")).toBeVisible();
  await expect(page.locator(".message.assistant pre code")).toContainText("println!");
});

test("Enter sends a follow-up and Shift+Enter starts a new line", async ({ page }) => {
  await startChat(page, "say hello first");
  await expect(page.getByText("That is all.")).toBeVisible();
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("line one");
  await box.press("Shift+Enter");
  await box.pressSequentially("say hello on line two");
  await expect(box).toHaveValue("line one\nsay hello on line two");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  await expect(page.locator(".message.user").last()).toHaveText(/line one\s+say hello on line two/);
  await expect(page.locator(".message.assistant")).toHaveCount(2);
});

test("a thread can be renamed, archived, unarchived and deleted", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "say hello to the sidebar");
  await expect(page.getByText("That is all.")).toBeVisible();
  const sidebar = page.getByRole("navigation", { name: "Threads" });
  const title = `Renamed ${Date.now()}`;

  await activeThreadItem(page).getByRole("button", { name: /^Rename/ }).click();
  const input = sidebar.getByRole("textbox", { name: "New title" });
  await input.fill(title);
  await input.press("Enter");
  await expect(sidebar.getByRole("link", { name: title })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);

  await sidebar.getByRole("button", { name: `Archive ${title}` }).click();
  await expect(sidebar.getByRole("link", { name: title })).toHaveCount(0);
  await sidebar.getByRole("button", { name: "Archived" }).click();
  const archived = sidebar.getByRole("region", { name: "Archived threads" });
  await expect(archived.getByRole("link", { name: title })).toBeVisible();

  await archived.getByRole("button", { name: `Unarchive ${title}` }).click();
  await expect(archived.getByRole("link", { name: title })).toHaveCount(0);
  const item = sidebar.locator("li", { has: page.getByRole("link", { name: title }) });
  await expect(item).toBeVisible();

  await item.getByRole("button", { name: `Delete ${title}` }).click();
  const confirm = sidebar.getByRole("group", { name: `Confirm deleting ${title}` });
  await expect(confirm).toContainText("for good?");
  await confirm.getByRole("button", { name: "Yes, delete" }).click();
  await expect(sidebar.getByRole("link", { name: title })).toHaveCount(0);
  await page.waitForURL((u) => u.pathname === "/");
  expect(trouble.errors).toEqual([]);
});

test("a rename half typed survives the sidebar being read again when a thread changes", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "say hello to the rebuilt sidebar");
  await expect(page.getByText("That is all.")).toBeVisible();
  const sidebar = page.getByRole("navigation", { name: "Threads" });
  await activeThreadItem(page).getByRole("button", { name: /^Rename/ }).click();
  const input = sidebar.getByRole("textbox", { name: "New title" });
  await input.fill("Half");

  // The model names the thread again (a thread change), and the sidebar reads its lists again:
  // every row is built anew. The button takes the focus from the box meanwhile.
  const relisted = page.waitForResponse((r) => r.url().includes("/api/list_threads"));
  await page.getByRole("button", { name: "Suggest a title" }).click();
  await relisted;

  // The box is still there with what was typed, the caret back in it at the end (the rebuilt
  // row's box takes the focus: without a rebuild it would have stayed on the button).
  await expect(input).toHaveValue("Half");
  await expect(input).toBeFocused();
  const title = `Half typed ${Date.now()}`;
  await page.keyboard.type(title.slice("Half".length));
  await input.press("Enter");
  await expect(sidebar.getByRole("link", { name: title })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  expect(trouble.errors).toEqual([]);
});

test("an approval coming and going updates its thread's badge without reading the thread lists again", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  // The run ends on the approval; the model's title (a change of the list, which is read again for
  // it) is held back until the badge has been checked.
  const titles = `http://127.0.0.1:${MODEL_PORT}/_fixture/titles`;
  expect((await request.post(`${titles}/hold`)).ok()).toBe(true);
  await startChat(page, "count the requests");
  await expect(approvalCard(page)).toContainText("counted.txt");
  const id = page.url().split("/chat/")[1];

  // Decided in the inbox, where no run is followed: only the inbox's feed tells the sidebar.
  await openHydrated(page, "/inbox");
  const row = page.getByRole("navigation", { name: "Threads" }).locator(`li.thread-item:has(a[href="/chat/${id}"])`);
  try {
    await expect(row.locator(".thread-waiting")).toHaveText("1 approval waiting");
    const listed: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/api/list_threads")) listed.push(r.url());
    });
    const waiting = page.getByRole("list", { name: "Approvals" }).getByRole("article", { name: /counted\.txt/ });
    await waiting.getByRole("button", { name: "Approve" }).click();
    await expect(waiting).toHaveCount(0);
    await expect(row.locator(".thread-waiting")).toHaveCount(0);
    await expect(row).toBeVisible();
    expect(listed, "the thread lists are not read again for an inbox change").toEqual([]);
    await expect(row.getByRole("link")).toHaveText("count the requests");
  } finally {
    await request.post(`${titles}/release`);
  }
  // The model's title reaches this page's sidebar too, though no run is followed here.
  await expect(row.getByRole("link")).toHaveText("Request count");
  expect(trouble.errors).toEqual([]);
});

test("Stop ends a run that is still answering", async ({ page }) => {
  await startChat(page, "Please tell a long story");
  await expect(page.locator(".streaming")).toContainText("Once");
  const stop = page.getByRole("button", { name: "Stop" });
  await expect(stop).toBeVisible();
  await stop.click();
  await expect(stop).toBeHidden();
  await expect(page.getByRole("button", { name: "Send" })).toBeEnabled();
});

test("a model error is shown inline and Retry runs again", async ({ page }) => {
  await startChat(page, "break on purpose now");
  const alert = page.getByRole("alert").filter({ hasText: "fixture exploded on purpose" });
  await expect(alert).toBeVisible();
  await alert.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByText("Recovered after the retry.")).toBeVisible();
  await expect(alert).toBeHidden();
});

test("hostile markdown from the model renders inert", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "hostile markdown, please");
  await expect(page.getByText("end of answer.")).toBeVisible();
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await expect(page.getByText("end of answer.")).toBeVisible();

  const answer = page.locator(".message.assistant").last();
  await expect(answer.locator("img, script")).toHaveCount(0);
  await expect(answer).toContainText('<img src=x onerror="window.__xss = 1">');
  await expect(answer.getByText("click me")).toBeVisible();
  expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
  expect(await page.locator("[onerror], [onclick], [onload]").count()).toBe(0);
  await answer.getByText("click me").click();
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(trouble.dialogs).toEqual([]);
  expect(trouble.errors).toEqual([]);
});
