// Issue 14's message actions in the browser: the model's code block arrives highlighted by the server
// and copies with its own button; a message copies whole (the model's as the Markdown it wrote) and
// shows when it was written.
import { expect, test } from "@playwright/test";
import { answer, startChat, watchForTrouble } from "./helpers";

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
  await expect(block.locator("span.hl-storage").first()).toHaveText("fn");

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
  await expect(reply.locator("time")).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  expect(trouble.errors).toEqual([]);
});
