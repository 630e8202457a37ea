// Issue 14's message actions in the browser: the model's code block arrives highlighted by the server
// and copies with its own button; a message copies whole (the model's as the Markdown it wrote) and
// shows when it was written.
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import { answer, approvalCard, startChat, watchForTrouble, workspacePath } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

async function clipboard(page: import("@playwright/test").Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

test("a code block is highlighted by the server and copies; a message copies whole and shows its time", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Please say hello with some code");
  const reply = answer(page, "Hello from the fixture!");
  await expect(reply).toBeVisible();

  // Highlighted where it was rendered: the HTML the server sends already has the grammar's spans.
  const html = await (await page.request.get(page.url())).text();
  expect(html).toMatch(/<code class="language-rust"><span class="hl-[^"]*">/);
  const block = reply.locator("pre");
  await expect(block.locator("span.hl-keyword").first()).toHaveText("fn");

  await reply.hover();
  await block.getByRole("button", { name: "Copy code" }).click();
  await expect(block.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await clipboard(page)).toBe('fn main() {\n    println!("hi");\n}\n');

  // The model's message copies as the Markdown it wrote; the person's as typed.
  const replyActions = reply.locator(".message-actions");
  await replyActions.getByRole("button", { name: "Copy", exact: true }).click();
  await expect(replyActions.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
  expect(await clipboard(page)).toContain("Here is **bold** text and code:\n\n```rust\n");
  const mine = page.locator(".message.user").filter({ hasText: "Please say hello with some code" });
  await mine.hover();
  await mine.getByRole("button", { name: "Copy", exact: true }).click();
  await expect.poll(() => clipboard(page)).toBe("Please say hello with some code");

  // When each was written, readable, with the exact time for machines.
  await expect(mine.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  await expect(reply.locator("time")).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC([+-]\d+(:\d\d)?)?$/);
  expect(trouble.errors).toEqual([]);
});

test("streaming keeps the bottom in view until the person scrolls up; Jump to latest takes them back", async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 500 });
  const distanceToBottom = () =>
    page.evaluate(() => document.documentElement.scrollHeight - (window.scrollY + window.innerHeight));
  const jump = page.getByRole("button", { name: /Jump to latest/ });

  await startChat(page, "Please give a long scrolling answer");
  // Followed while it streams: the page is taller than the window and its bottom stays in view.
  await expect(page.locator(".streaming")).toContainText("Paragraph 12");
  expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(1000);
  await expect.poll(distanceToBottom).toBeLessThan(80);
  await expect(jump).toBeHidden();

  // Scrolled up: it stays there while the rest arrives, and offers the way back.
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(jump).toBeVisible();
  await expect(answer(page, "Paragraph 1:")).toContainText("The end of the long answer.");
  expect(await page.evaluate(() => window.scrollY)).toBeLessThan(50);

  await jump.click();
  await expect.poll(distanceToBottom).toBeLessThan(80);
  await expect(jump).toBeHidden();
});

test("an edit and another answer make versions; the picker switches, the choice survives a reload, and a branch left cancels its card", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Tell me about apples for branching");
  await expect(answer(page, "Apples are crisp.")).toBeVisible();
  const mine = page.locator(".message.user").first();

  // Edit: a new version of the prompt, answered from there; the first is one click away.
  await mine.hover();
  await mine.getByRole("button", { name: "Edit", exact: true }).click();
  await mine.getByLabel("Edit your message").fill("Tell me about pears for branching");
  await mine.getByRole("button", { name: "Send edit" }).click();
  await expect(answer(page, "Pears are soft.")).toBeVisible();
  await expect(answer(page, "Apples are crisp.")).toHaveCount(0);
  const versions = page.locator(".message.user").first().getByRole("group", { name: "Versions of this message" });
  await expect(versions).toContainText("2 / 2");
  await versions.getByRole("button", { name: "Previous version" }).click();
  await expect(answer(page, "Apples are crisp.")).toBeVisible();
  await expect(answer(page, "Pears are soft.")).toHaveCount(0);
  await expect(versions).toContainText("1 / 2");

  // Chosen and stored: the server renders that branch.
  const html = await (await page.request.get(page.url())).text();
  expect(html).toContain("Apples are crisp.");
  expect(html).not.toContain("Pears are soft.");

  // Another answer: a sibling of the first, with its own picker.
  const reply = answer(page, "Apples are crisp.");
  await reply.hover();
  await reply.getByRole("button", { name: "Regenerate" }).click();
  const answerVersions = page.locator(".message.assistant").getByRole("group", { name: "Versions of this message" });
  await expect(answerVersions).toContainText("2 / 2");

  // A branch with a card waiting, left by an edit: its card is cancelled, not denied, and nothing ran.
  const prompt = page.locator(".message.user").first();
  await prompt.hover();
  await prompt.getByRole("button", { name: "Edit", exact: true }).click();
  await prompt.getByLabel("Edit your message").fill("Please write plums for branching");
  await prompt.getByRole("button", { name: "Send edit" }).click();
  await expect(approvalCard(page)).toBeVisible();
  await prompt.hover();
  await prompt.getByRole("button", { name: "Edit", exact: true }).click();
  await prompt.getByLabel("Edit your message").fill("Tell me about pears for branching again");
  await prompt.getByRole("button", { name: "Send edit" }).click();
  await expect(answer(page, "Pears are soft.")).toBeVisible();
  await expect(approvalCard(page)).toHaveCount(0);
  await expect(versions).toContainText("4 / 4");
  await versions.getByRole("button", { name: "Previous version" }).click();
  await expect(page.getByText("Cancelled: the run stopped before a decision")).toBeVisible();
  expect(fs.existsSync(workspacePath("plums.txt"))).toBe(false);
  expect(trouble.errors).toEqual([]);
});
