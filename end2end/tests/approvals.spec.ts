// Issue 3 in the browser: gated tool calls wait on an approval card; a person approves, denies
// (with a reason), edits the arguments, or allows for the thread; a reload and a second tab show
// the same pending card, and a decision in one tab updates the other.
import { expect, test } from "@playwright/test";
import { activeThreadItem, approvalCard, openHydrated, startChat } from "./helpers";

test("approving a file write runs it and the model continues", async ({ page }) => {
  await startChat(page, "Please write a note");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  await expect(card.getByText("Risk:")).toBeVisible();
  await expect(card).toContainText("note.txt");
  await expect(card).toContainText("hello note");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("The note is written.")).toBeVisible();
  await expect(card).toHaveCount(0);
  await expect(page.getByText("Approved by you")).toBeVisible();
});

test("denying a command tells the model why", async ({ page }) => {
  await startChat(page, "Please clean the build");
  const card = approvalCard(page);
  await expect(card.locator("pre.command")).toHaveText("rm -rf build");
  await expect(card.locator(".risk")).toContainText(/high/i);
  await card.getByRole("textbox", { name: "Reason for denying (optional)" }).fill("not today");
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByText("Understood, I will leave the build alone.")).toBeVisible();
  await expect(page.getByText("Denied by you: not today")).toBeVisible();
});

test("edited arguments are validated by the server, then approved", async ({ page }) => {
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
  await expect(page.getByText("Wrote the edited file.")).toBeVisible();
  await expect(page.getByText(/Approved by you with edited arguments/)).toBeVisible();
});

test("allow for this thread lets the next matching call run without asking", async ({ page }) => {
  await startChat(page, "Please echo twice");
  const card = approvalCard(page);
  await card.getByRole("textbox", { name: /commands starting with/ }).fill("echo");
  await card.getByRole("button", { name: "Allow for this thread" }).click();
  await expect(page.getByText("Both echoes ran.")).toBeVisible();
  await expect(page.getByText("Approved by thread rule")).toBeVisible();

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
  await expect(page.getByText("Ran after the reload.")).toBeVisible();
});

test("two tabs show the same pending card and both update when one decides", async ({ page, context }) => {
  await startChat(page, "two tabs watching");
  await expect(approvalCard(page)).toBeVisible();
  const second = await context.newPage();
  await openHydrated(second, page.url());
  await expect(approvalCard(second)).toContainText("echo two tabs");

  await approvalCard(second).getByRole("button", { name: "Approve", exact: true }).click();
  for (const tab of [page, second]) {
    await expect(tab.getByText("Ran once for both tabs.")).toBeVisible();
    await expect(approvalCard(tab)).toHaveCount(0);
  }
});
