// Issue 3 in the browser: gated tool calls wait on an approval card; a person approves, denies
// (with a reason), edits the arguments, or allows for the thread; a reload and a second tab show
// the same pending card, and a decision in one tab updates the other.
//
// The scripted model echoes the tool results it is sent (`echo_tool_results` in
// end2end/fixtures/script.json), so a check of its answer is a check of what Warden told it.
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import { activeThreadItem, answer, approvalCard, openHydrated, shellSaid, startChat, workspacePath } from "./helpers";

test("approving a file write runs it and the model continues", async ({ page }) => {
  const note = workspacePath("note.txt");
  fs.rmSync(note, { force: true }); // a data dir given again by WARDEN_E2E_DATA_DIR starts without it
  await startChat(page, "Please write a note");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  await expect(card.getByText("Risk:")).toBeVisible();
  await expect(card).toContainText("note.txt");
  await expect(card).toContainText("hello note");
  expect(fs.existsSync(note), "nothing is written before the decision").toBe(false);
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  // The model answers with the write's real result, and the file is on disk.
  await expect(answer(page, "The note is written.")).toContainText("[tool said: Wrote 11 bytes to note.txt (new file)]");
  expect(fs.readFileSync(note, "utf8")).toBe("hello note\n");
  await expect(card).toHaveCount(0);
  await expect(page.getByText("Approved by you")).toBeVisible();
});

test("an approval round trip is one request: the run's events patch the page in place", async ({ page }) => {
  fs.rmSync(workspacePath("counted.txt"), { force: true });
  await startChat(page, "count the requests");
  const card = approvalCard(page);
  await expect(card).toContainText("counted.txt");
  const requests: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/")) requests.push(`${r.method()} ${url.pathname}`);
  });
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  // The answer depends on the write having run: the model repeats the result it was sent.
  await expect(answer(page, "Counted.")).toContainText("[tool said: Wrote 8 bytes to counted.txt (new file)]");
  await expect(page.getByText("Approved by you")).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
  console.log(`requests during one approval round trip (${requests.length}): ${requests.join(", ")}`);
  expect(requests.filter((r) => r.includes("decide_approval")), "the decision").toHaveLength(1);
  expect(requests.filter((r) => r.includes("get_thread")), "the thread is never read again").toEqual([]);
  expect(fs.readFileSync(workspacePath("counted.txt"), "utf8")).toBe("counted\n");
});

test("the write card names the file a symbolic link leads to", async ({ page }) => {
  // `linked-notes.txt -> linkrepo/.git/config`: the write lands in the repository's config.
  const config = workspacePath("linkrepo", ".git", "config");
  fs.mkdirSync(workspacePath("linkrepo", ".git"), { recursive: true });
  fs.writeFileSync(config, "[core]\n");
  fs.rmSync(workspacePath("linked-notes.txt"), { force: true });
  fs.symlinkSync("linkrepo/.git/config", workspacePath("linked-notes.txt"));
  await startChat(page, "write through the link");
  const card = approvalCard(page);
  await expect(card.getByRole("heading", { level: 3 })).toHaveText(
    "Approval needed: Write 8 bytes to `linkrepo/.git/config` through the symbolic link `linked-notes.txt` (overwrites existing file)",
  );
  await expect(card).toContainText("Changes to linkrepo/.git/config");
  await expect(card).toContainText("`linked-notes.txt` is a symbolic link: this writes `linkrepo/.git/config`");
  await expect(card).toContainText("-[core]");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "Written through the link.")).toContainText(
    "[tool said: Wrote 8 bytes to linkrepo/.git/config through the symbolic link linked-notes.txt (replaced existing file)]",
  );
  expect(fs.readFileSync(config, "utf8")).toBe("[alias]\n");
});

test("denying a command tells the model why", async ({ page }) => {
  // Something for `rm -rf build` to remove, so its not running shows on disk.
  const kept = workspacePath("build", "kept.txt");
  fs.mkdirSync(workspacePath("build"), { recursive: true });
  fs.writeFileSync(kept, "still here\n");
  await startChat(page, "Please clean the build");
  const card = approvalCard(page);
  await expect(card.locator("pre.command")).toHaveText("rm -rf build");
  await expect(card.locator(".risk")).toContainText(/high/i);
  await card.getByRole("textbox", { name: "Reason for denying (optional)" }).fill("not today");
  await card.getByRole("button", { name: "Deny" }).click();
  // The model's answer repeats what it was sent: the denial with the person's reason.
  await expect(answer(page, "Understood, I will leave the build alone.")).toContainText(
    "[tool said: Error: The user denied this call; it did not run. Their reason: not today]",
  );
  await expect(page.getByText("Denied by you: not today")).toBeVisible();
  expect(fs.readFileSync(kept, "utf8")).toBe("still here\n");
});

test("edited arguments are validated by the server, then approved", async ({ page }) => {
  fs.rmSync(workspacePath("edited.txt"), { force: true });
  await startChat(page, "edit me first, please");
  const card = approvalCard(page);
  await card.getByRole("button", { name: "Edit" }).click();
  const editor = card.getByRole("textbox", { name: "Arguments (JSON)" });
  await expect(editor).toHaveValue(/original/);

  await editor.fill('{"path": 5}');
  await card.getByRole("button", { name: "Approve with edits" }).click();
  await expect(card.getByRole("alert")).toBeVisible();

  await editor.fill('{"path": "edited.txt", "content": "changed by a person\\n"}');
  await card.getByRole("button", { name: "Approve with edits" }).click();
  const reply = answer(page, "Wrote the edited file.");
  await expect(reply).toContainText("The user edited the arguments before approving");
  await expect(reply).toContainText("Wrote 20 bytes to edited.txt (new file)");
  await expect(page.getByText(/Approved by you with edited arguments/)).toBeVisible();
  expect(fs.readFileSync(workspacePath("edited.txt"), "utf8")).toBe("changed by a person\n");
});

test("allow for this thread lets the next matching call run without asking", async ({ page }) => {
  await startChat(page, "Please echo twice");
  const card = approvalCard(page);
  await card.getByRole("textbox", { name: /commands starting with/ }).fill("echo");
  await card.getByRole("button", { name: "Allow for this thread" }).click();
  // The second command ran without a card: the model was sent its output.
  await expect(answer(page, "Both echoes ran.")).toContainText(shellSaid("second\\s+exit code: 0"));
  await expect(page.getByText("Approved by thread rule")).toBeVisible();
  await expect(approvalCard(page)).toHaveCount(0);

  const rules = page.getByRole("region", { name: "Allowed in this thread" });
  await expect(rules).toContainText("shell");
  await rules.getByRole("button", { name: /Revoke/ }).click();
  await expect(rules).toHaveCount(0);
});

test("refreshing the thread keeps a waiting card and what is typed into it", async ({ page }) => {
  await startChat(page, "Please clean the build");
  const card = approvalCard(page);
  const reason = card.getByRole("textbox", { name: "Reason for denying (optional)" });
  await reason.fill("half typed");
  // Marks this very element: a card rebuilt by the refresh would come without the mark.
  await reason.evaluate((el) => el.setAttribute("data-probe", "kept"));

  // A rename in the sidebar refetches the open thread.
  const title = `Refreshed ${Date.now()}`;
  await activeThreadItem(page).getByRole("button", { name: /^Rename/ }).click();
  const input = page.getByRole("navigation", { name: "Threads" }).getByRole("textbox", { name: "New title" });
  await input.fill(title);
  await input.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);

  await expect(reason).toHaveAttribute("data-probe", "kept");
  await expect(reason).toHaveValue("half typed");
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByText("Denied by you: half typed")).toBeVisible();
});

test("a pending approval survives a reload", async ({ page }) => {
  await startChat(page, "pending across reload");
  await expect(approvalCard(page)).toBeVisible();
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  const card = approvalCard(page);
  await expect(card).toContainText("echo survived reload");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "Ran after the reload.")).toContainText(shellSaid("survived reload\\s+exit code: 0"));
});

test("two tabs show the same pending card and both update when one decides", async ({ page, context }) => {
  fs.rmSync(workspacePath("tabs.txt"), { force: true });
  await startChat(page, "two tabs watching");
  await expect(approvalCard(page)).toBeVisible();
  const second = await context.newPage();
  await openHydrated(second, page.url());
  await expect(approvalCard(second)).toContainText("echo two tabs");

  await approvalCard(second).getByRole("button", { name: "Approve", exact: true }).click();
  for (const tab of [page, second]) {
    await expect(answer(tab, "Ran once for both tabs.")).toContainText(shellSaid("exit code: 0"));
    await expect(approvalCard(tab)).toHaveCount(0);
  }
  // The command appends a line each time it runs: one line, it ran once.
  expect(fs.readFileSync(workspacePath("tabs.txt"), "utf8")).toBe("two tabs\n");
});
