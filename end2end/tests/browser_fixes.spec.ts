// What a new user met in the browser (issue 40): a second tab that followed nothing, a long word that
// widened the page, an edited write whose header and diff kept the model's path, and more. Each test
// shows one fix as a person meets it.
import { expect, test, type Page } from "@playwright/test";
import * as fs from "node:fs";
import { TOKEN } from "../fixtures/access";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble, workspacePath } from "./helpers";

/** Whether the page scrolls sideways. */
async function fitsTheWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** Sends `text` from the chat's message box. */
async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

test("a second tab on the same thread shows what the first sends, its card and the decision made there", async ({ page, context }) => {
  fs.rmSync(workspacePath("second-tab.txt"), { force: true });
  await startChat(page, "hello from the first tab");
  await expect(answer(page, "You said: hello from the first tab")).toBeVisible();
  const other = await context.newPage();
  await openHydrated(other, page.url());
  await expect(answer(other, "You said: hello from the first tab")).toBeVisible();

  await send(page, "Please write the second tab note");
  const conversation = other.getByRole("list", { name: "Conversation" });
  await expect(conversation.locator(".message.user").filter({ hasText: "Please write the second tab note" })).toBeVisible();
  await expect(approvalCard(other)).toContainText("second-tab.txt");
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(approvalCard(other)).toHaveCount(0);
  await expect(other.getByText("Approved by you")).toBeVisible();
  await expect(answer(other, "Second tab note written.")).toContainText("Wrote 13 bytes to second-tab.txt");
  expect(fs.readFileSync(workspacePath("second-tab.txt"), "utf8")).toBe("from tab one\n");
});

test("a 5,000-character word breaks inside its bubble and a long code line scrolls inside its block", async ({ page }) => {
  const word = "W".repeat(5000);
  await startChat(page, word);
  await expect(answer(page, "You said:")).toBeVisible();
  expect(await fitsTheWidth(page), "both bubbles keep to the page's width").toBe(true);

  await send(page, "long code line please");
  const code = answer(page, "Here is a long line").locator("pre");
  await expect(code).toBeVisible();
  expect(await fitsTheWidth(page), "the code block keeps to the page's width").toBe(true);
  expect(await code.evaluate((e) => e.scrollWidth > e.clientWidth), "the code scrolls inside its block").toBe(true);

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(code).toBeVisible();
  expect(await fitsTheWidth(page), "on a phone too").toBe(true);
});

test("approving a write with edits: the header and the diff follow the edit", async ({ page }) => {
  fs.rmSync(workspacePath("edit-before.txt"), { force: true });
  fs.rmSync(workspacePath("edit-after.txt"), { force: true });
  await startChat(page, "Please edit the path please");
  const card = approvalCard(page);
  const heading = card.getByRole("heading", { level: 3 });
  await expect(heading).toContainText("edit-before.txt");
  await card.getByRole("button", { name: "Edit", exact: true }).click();
  await card.getByRole("textbox", { name: "Arguments (JSON)" }).fill(
    JSON.stringify({ path: "edit-after.txt", content: "after edits\n" }, null, 2),
  );
  // While editing: the card names the edited file and shows its diff.
  await expect(heading).toContainText("Write 12 bytes to `edit-after.txt`");
  await expect(card.locator("pre.diff")).toContainText("+after edits");
  await expect(card).toContainText("Changes to edit-after.txt");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  await expect(answer(page, "Edited path written.")).toContainText("Wrote 12 bytes to edit-after.txt");
  // The call's header names what ran, after the decision and after a reload.
  const call = page.getByRole("listitem", { name: "Tool call write_file" });
  await expect(call.locator(".tool-summary")).toHaveText("Write 12 bytes to `edit-after.txt` (new file)");
  await page.reload();
  await expect(call.locator(".tool-summary")).toHaveText("Write 12 bytes to `edit-after.txt` (new file)");
  expect(fs.existsSync(workspacePath("edit-before.txt"))).toBe(false);
  expect(fs.readFileSync(workspacePath("edit-after.txt"), "utf8")).toBe("after edits\n");
});

test("skip links lead past the sidebar to the conversation and the message box; a decision moves the focus on", async ({ page }) => {
  fs.rmSync(workspacePath("second-tab.txt"), { force: true });
  await startChat(page, "Please write the second tab note from the keyboard");
  await expect(approvalCard(page)).toBeVisible();
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();

  // However many threads the sidebar lists: the skip link is the first stop, the page's first control the third.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.getElementById("main")?.contains(document.activeElement))).toBe(true);
  let stops = 3;
  while (!(await approvalCard(page).evaluate((card) => card === document.activeElement)) && stops < 30) {
    await page.keyboard.press("Tab");
    stops += 1;
  }
  console.log(`tab stops to the approval card via the skip link: ${stops}`);
  expect(stops).toBeLessThan(15);

  // Approving with the card's key: the focus goes to the message box, not to the page's body.
  await page.keyboard.press("a");
  await expect(approvalCard(page)).toHaveCount(0);
  await expect(page.locator("#composer-input")).toBeFocused();

  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to message box" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("#composer-input")).toBeFocused();
});

test("importing a file that is not JSON is refused with a 4xx, the reason in view; the imported note clears the export links", async ({ page }, testInfo) => {
  await openHydrated(page, "/");
  await expect(page.getByRole("navigation", { name: "Threads" }).getByLabel("Import a thread (JSON)")).toHaveCount(0);
  await page.setViewportSize({ width: 390, height: 700 });
  await openHydrated(page, "/settings");
  const bogus = testInfo.outputPath("not-json.json");
  fs.writeFileSync(bogus, "this is { not json");
  // Where a person picks the file: the field in view.
  const field = page.getByLabel("Import a thread (JSON)");
  await field.scrollIntoViewIfNeeded();
  const [answered] = await Promise.all([
    page.waitForResponse((r) => r.url().includes("import_thread")),
    field.setInputFiles(bogus),
  ]);
  expect(answered.status()).toBe(422);
  const alert = page.getByRole("region", { name: "Import a thread" }).getByRole("alert");
  await expect(alert).toContainText("not a Warden thread export");
  await expect(alert).toBeInViewport();
  expect(await fitsTheWidth(page)).toBe(true);

  // A real export, imported: its note sits below the export links, overlapping nothing.
  await page.setViewportSize({ width: 1280, height: 800 });
  await startChat(page, "a thread to import again");
  await expect(answer(page, "You said: a thread to import again")).toBeVisible();
  const exported = await page.request.get(`${new URL(page.url()).pathname.replace("/chat/", "/api/threads/")}/export.json`);
  const file = testInfo.outputPath("export.json");
  fs.writeFileSync(file, await exported.body());
  await openHydrated(page, "/settings");
  await page.getByLabel("Import a thread (JSON)").setInputFiles(file);
  const note = page.getByText(/^Imported on /);
  await expect(note).toBeVisible();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    const noteBox = await note.boundingBox();
    for (const link of await page.getByRole("navigation", { name: "Export this thread" }).getByRole("link").all()) {
      const box = await link.boundingBox();
      const apart = !noteBox || !box || box.y + box.height <= noteBox.y || noteBox.y + noteBox.height <= box.y ||
        box.x + box.width <= noteBox.x || noteBox.x + noteBox.width <= box.x;
      expect(apart, `the note and "${await link.textContent()}" at ${width} px`).toBe(true);
    }
  }
});

test("while words stream the status says the model writes; a stopped answer is marked, also after a reload", async ({ page }) => {
  await startChat(page, "Please tell a long story, then stop");
  await expect(page.locator(".streaming")).toContainText("Once");
  await expect(page.locator(".run-status [role=status]")).toContainText("writing the answer");
  await expect(page.locator(".run-status [role=status]")).not.toContainText("Thinking");
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const stopped = answer(page, "Once").locator(".stopped-mark");
  await expect(stopped).toContainText("Stopped");
  await page.reload();
  await expect(stopped).toContainText("Stopped");
  // An answer that ran to its end carries no mark.
  await send(page, "and now a short one");
  await expect(answer(page, "You said: and now a short one").locator(".stopped-mark")).toHaveCount(0);
});

test("in the editor of a sent prompt Enter sends the edit and Shift+Enter adds a line, as its hint says", async ({ page }) => {
  await startChat(page, "a prompt to edit");
  await expect(answer(page, "You said: a prompt to edit")).toBeVisible();
  const mine = page.locator(".message.user").filter({ hasText: "a prompt to edit" });
  await mine.hover();
  await mine.getByRole("button", { name: "Edit" }).click();
  const box = page.getByRole("textbox", { name: "Edit your message" });
  await expect(box).toHaveAccessibleDescription(/Enter sends the edit, Shift\+Enter adds a line/);
  await box.fill("the edited prompt");
  await box.press("Shift+Enter");
  await box.pressSequentially("second line");
  await expect(box).toHaveValue("the edited prompt\nsecond line");
  await box.press("Enter");
  await expect(box).toHaveCount(0);
  await expect(answer(page, "You said: the edited prompt")).toBeVisible();
});

test("an archived thread opens read-only under an Archived bar with Unarchive, and keeps its pin", async ({ page, request }) => {
  const person = { Authorization: `Bearer ${TOKEN}` };
  await startChat(page, "a thread to archive and pin");
  await expect(answer(page, "You said: a thread to archive and pin")).toBeVisible();
  const id = new URL(page.url()).pathname.split("/").pop();
  expect((await request.patch(`/api/threads/${id}`, { headers: person, data: { pinned: true } })).status()).toBe(200);
  expect((await request.patch(`/api/threads/${id}`, { headers: person, data: { archived: true } })).status()).toBe(200);

  await page.reload();
  const bar = page.getByRole("status").filter({ hasText: "This thread is archived" });
  await expect(bar).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeHidden();
  const archived = page.getByRole("navigation", { name: "Threads" });
  await archived.getByRole("button", { name: "Archived" }).click();
  await expect(archived.getByRole("region", { name: "Archived threads" })).toContainText("Pinned: back among the pinned when unarchived");

  await bar.getByRole("button", { name: "Unarchive" }).click();
  await expect(bar).toBeHidden();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  const thread = await (await request.get(`/api/threads/${id}`, { headers: person })).json();
  expect(thread).toMatchObject({ archived: false, pinned: true });
});

test.describe("in a browser five and a half hours east of UTC", () => {
  test.use({ timezoneId: "Asia/Kolkata" });

  test("times show in the browser's zone, with the UTC time in their title", async ({ page }) => {
    const trouble = watchForTrouble(page);
    await startChat(page, "what time is it where I am");
    const time = answer(page, "You said: what time is it where I am").locator("time");
    await expect(time).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+5:30$/);
    await expect(time).toHaveAttribute("title", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // The local time is the stored one moved by the offset.
    const stored = new Date((await time.getAttribute("datetime")) ?? "");
    const local = new Date(stored.getTime() + 330 * 60_000).toISOString().slice(0, 19).replace("T", " ");
    await expect(time).toHaveText(`${local} UTC+5:30`);
    // After a reload the server renders UTC and the page, once hydrated, the local time, with no mismatch.
    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    await expect(time).toHaveText(`${local} UTC+5:30`);
    expect(trouble.errors).toEqual([]);
  });
});

test("\"Jump to latest\" shows only while the page is scrolled away from its bottom", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 400 });
  await startChat(page, "say hello to the jump button");
  await expect(answer(page, "Hello from the fixture!")).toBeVisible();
  const jump = page.getByRole("button", { name: /Jump to latest/ });
  // The page scrolls at this height: scrolled up, the button offers the way back.
  expect(await page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight)).toBe(true);
  await page.mouse.move(600, 200);
  await page.mouse.wheel(0, -5000);
  await expect(jump).toBeVisible();
  // Tall enough that nothing scrolls: no button, whatever stopped following.
  await page.setViewportSize({ width: 1280, height: 3000 });
  expect(await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
  await expect(jump).toBeHidden();
});

test("/audit fits a 390 px phone", async ({ page }) => {
  // At least one decision with long arguments in the log.
  fs.rmSync(workspacePath("second-tab.txt"), { force: true });
  await startChat(page, "Please write the second tab note for the audit");
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "Second tab note written.")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await openHydrated(page, "/audit");
  await expect(page.getByRole("table", { name: "Decisions, newest first" })).toBeVisible();
  expect(await fitsTheWidth(page)).toBe(true);
});

test("what people and models write is laid out by its own direction (dir=auto)", async ({ page }) => {
  const hebrew = "שלום עולם, מה שלומך היום";
  await startChat(page, hebrew);
  await expect(answer(page, "You said:")).toBeVisible();
  const mine = page.locator(".message.user .plain");
  await expect(mine).toHaveAttribute("dir", "auto");
  expect(await mine.evaluate((e) => getComputedStyle(e).direction)).toBe("rtl");
  await expect(page.locator(".message.assistant .markdown").first()).toHaveAttribute("dir", "auto");
  await expect(page.locator("h1.thread-title")).toHaveAttribute("dir", "auto");
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveAttribute("dir", "auto");
  await expect(page.getByRole("searchbox", { name: "Search threads" })).toHaveAttribute("dir", "auto");
  await expect(page.getByRole("navigation", { name: "Threads" }).locator(".thread-item a").first()).toHaveAttribute("dir", "auto");
});

test("an inbox item names a shell command in its title and shows it in its block, not a third time", async ({ page }) => {
  await startChat(page, "Please clean the build from the inbox");
  await expect(approvalCard(page)).toBeVisible();
  await openHydrated(page, "/inbox");
  const entry = page.getByRole("article").filter({ hasText: "rm -rf build" }).first();
  await expect(entry).toBeVisible();
  // The title names it (the summary), the block shows it whole; the fold's label does not repeat it.
  expect(await entry.evaluate((e) => (e.textContent ?? "").split("rm -rf build").length - 1)).toBe(2);
  await expect(entry.locator("details.inbox-preview > summary")).toHaveText("Command");
  await entry.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(entry).toHaveCount(0);
});

test("on a phone every control is at least 44 px each way", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await startChat(page, "Please write the second tab note on a phone");
  await expect(approvalCard(page)).toBeVisible();
  const small = await page.evaluate(() => {
    const controls = document.querySelectorAll<HTMLElement>(
      "#main button, #main select, #main summary, #main input:not([type=hidden]), #main textarea, #main .thread-export a",
    );
    return [...controls]
      .filter((c) => c.offsetParent !== null && !c.closest("[hidden]"))
      .map((c) => ({ what: `${c.tagName} ${c.textContent?.trim().slice(0, 30) ?? ""}`, box: c.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 44 || box.height < 44)
      .map(({ what, box }) => `${what}: ${Math.round(box.width)}×${Math.round(box.height)}`);
  });
  expect(small).toEqual([]);
  // The sidebar's controls too, in its drawer.
  await page.getByRole("button", { name: "Menu" }).click();
  const sidebarSmall = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("#sidebar button, #sidebar a, #sidebar input")]
      .filter((c) => c.offsetParent !== null)
      .map((c) => ({ what: `${c.tagName} ${c.textContent?.trim().slice(0, 30) ?? ""}`, box: c.getBoundingClientRect() }))
      .filter(({ box }) => box.height < 44)
      .map(({ what, box }) => `${what}: ${Math.round(box.width)}×${Math.round(box.height)}`),
  );
  expect(sidebarSmall).toEqual([]);
  await page.keyboard.press("Escape");
  await approvalCard(page).getByRole("button", { name: "Deny", exact: true }).click();
  await expect(approvalCard(page)).toHaveCount(0);
});

test("the sidebar's rows have one height whether or not their actions show", async ({ page }) => {
  await startChat(page, "a row among rows");
  await expect(answer(page, "You said: a row among rows")).toBeVisible();
  await startChat(page, "another row among rows");
  await expect(answer(page, "You said: another row among rows")).toBeVisible();
  const rows = page.getByRole("navigation", { name: "Threads" }).locator(".thread-group.active .thread-item");
  const heights = async () => rows.evaluateAll((items) => items.map((i) => Math.round(i.getBoundingClientRect().height)));
  const before = await heights();
  expect(new Set(before).size, `one height: ${before}`).toBe(1);
  // Hovering a row shows its actions; no row changes height.
  await rows.nth(1).hover();
  await expect(rows.nth(1).getByRole("button", { name: /^Rename/ })).toBeVisible();
  expect(await heights()).toEqual(before);
});

test("the inbox on a 390 px phone: no sideways scroll, cards within the screen, buttons reachable", async ({ page }) => {
  await startChat(page, "Please write the second tab note for the phone inbox");
  await expect(approvalCard(page)).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await openHydrated(page, "/inbox");
  const entry = page.getByRole("article").filter({ hasText: "second-tab.txt" }).first();
  await expect(entry).toBeVisible();
  expect(await fitsTheWidth(page)).toBe(true);
  const card = await entry.boundingBox();
  expect(card && card.x >= 0 && card.x + card.width <= 390).toBe(true);
  for (const name of ["Approve", "Deny"]) {
    const button = entry.getByRole("button", { name, exact: true });
    await button.scrollIntoViewIfNeeded();
    const box = await button.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390 && box.height >= 44, `${name}: ${JSON.stringify(box)}`).toBe(true);
  }
  await entry.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(entry).toHaveCount(0);
});
