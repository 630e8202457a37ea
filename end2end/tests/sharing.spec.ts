// Threads belong to who started them: two invited members in browsers of their own. One member's thread is
// nowhere for the other (not in the sidebar, its address not found) until its owner shares it from the
// thread's header; then it is listed as shared and opens read-only (no composer, no edit or regenerate, no
// Delete in the sidebar). The owner by role may delete anyone's thread: their sidebar offers Delete on it (and
// nothing else of it), and deleting it there removes it for its member too.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { openHydrated, watchForTrouble } from "./helpers";

const PASSWORD = "correct horse battery staple";

/** Axe's serious and critical findings on the page as it is, light and dark. */
async function seriousViolations(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).analyze();
    for (const v of results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
      found.push(`${colorScheme} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    }
  }
  return found;
}

/** A member invited (by the owner's token) and joined by the link's page in a fresh browser of their own. */
async function member(browser: Browser, baseURL: string, name: string, login: string): Promise<Page> {
  const request = (await browser.newContext({ storageState: { cookies: [], origins: [] } })).request;
  const invited = await request.post(`${baseURL}/api/people/invitations`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    data: { role: "member", name },
  });
  expect(invited.status()).toBe(201);
  const { link } = await invited.json();
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(link);
  await page.getByLabel("Login").fill(login);
  await page.getByLabel(/^Password \(at least/).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByRole("button", { name: "Join" }).click();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  return page;
}

test("a member's thread is invisible to another member until shared, and then opens read-only", async ({
  page,
  browser,
  baseURL,
}) => {
  const ada = await member(browser, baseURL!, "Ada Sharer", "ada-sharing");
  const bob = await member(browser, baseURL!, "Bob Reader", "bob-sharing");
  const trouble = [watchForTrouble(ada), watchForTrouble(bob)];
  try {
    // Ada starts a thread.
    const box = ada.getByRole("textbox", { name: "Your prompt" });
    await box.fill("Please say hello to the team");
    await box.press("Enter");
    await ada.waitForURL(/\/chat\/[^/]+$/);
    const address = new URL(ada.url()).pathname;
    await expect(ada.getByRole("list", { name: "Conversation" })).toContainText("Hello from the fixture!");
    await expect(ada.getByRole("textbox", { name: "Message" })).toBeVisible();

    // Bob sees nothing of it: no thread in his sidebar, and its address is not found.
    const threads = bob.getByRole("navigation", { name: "Threads" });
    await openHydrated(bob, "/");
    await expect(threads.locator("li.thread-item")).toHaveCount(0);
    await openHydrated(bob, address);
    await expect(bob.getByText(/not found/i).first()).toBeVisible();
    await expect(bob.getByRole("textbox", { name: "Message" })).toBeHidden();

    // Ada shares it with Bob from the thread's header.
    await ada.getByRole("button", { name: "Share" }).click();
    const dialog = ada.getByRole("dialog", { name: "Share this thread" });
    await expect(dialog.getByRole("radio", { name: "Only me" })).toBeChecked();
    await dialog.getByRole("radio", { name: "People I choose" }).check();
    await dialog.getByRole("checkbox", { name: "Bob Reader" }).check();
    await dialog.getByRole("button", { name: "Save sharing" }).click();
    await expect(dialog.getByRole("status")).toHaveText("Sharing saved.");
    expect(await seriousViolations(ada)).toEqual([]);

    // Bob now finds it, marked as shared by Ada, and reads it without a way to write.
    await openHydrated(bob, "/");
    const item = threads.locator("li.thread-item");
    await expect(item).toHaveCount(1);
    await expect(item).toContainText("shared by Ada Sharer");
    await expect(item.getByRole("button", { name: /^Rename/ })).toHaveCount(0);
    await expect(item.getByRole("button", { name: /^Delete/ })).toHaveCount(0);
    await item.getByRole("link").click();
    await bob.waitForURL(new RegExp(`${address}$`));
    await expect(bob.getByRole("list", { name: "Conversation" })).toContainText("Hello from the fixture!");
    await expect(bob.getByText("Read only", { exact: true })).toBeVisible();
    await expect(bob.getByText("This thread is shared with you to read.")).toBeVisible();
    await expect(bob.getByRole("textbox", { name: "Message" })).toBeHidden();
    await expect(bob.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await expect(bob.getByRole("button", { name: "Regenerate" })).toHaveCount(0);
    await expect(bob.getByRole("button", { name: "Share" })).toHaveCount(0);
    expect(await seriousViolations(bob)).toEqual([]);
    // Loaded afresh (rendered by the server, then hydrated), it is read-only too.
    await bob.reload();
    await expect(bob.locator("body[data-hydrated]")).toBeAttached();
    await expect(bob.getByText("This thread is shared with you to read.")).toBeVisible();
    await expect(bob.getByRole("textbox", { name: "Message" })).toBeHidden();

    // Private again: gone for Bob.
    await ada.getByRole("radio", { name: "Only me" }).check();
    await ada.getByRole("button", { name: "Save sharing" }).click();
    await expect(ada.getByRole("dialog", { name: "Share this thread" }).getByRole("status")).toHaveText("Sharing saved.");
    await openHydrated(bob, "/");
    await expect(threads.locator("li.thread-item")).toHaveCount(0);

    // The owner (by role) reads it and may delete it, as the server allows, but not rename or archive it.
    await openHydrated(page, "/");
    const theirs = page
      .getByRole("navigation", { name: "Threads" })
      .locator("li.thread-item", { has: page.locator(`a[href="${address}"]`) });
    await expect(theirs).toContainText("shared by Ada Sharer");
    await expect(theirs.getByRole("button", { name: /^Rename/ })).toHaveCount(0);
    await expect(theirs.getByRole("button", { name: /^Archive/ })).toHaveCount(0);
    await theirs.getByRole("button", { name: /^Delete/ }).click();
    await page.getByRole("group", { name: /^Confirm deleting/ }).getByRole("button", { name: "Yes, delete" }).click();
    await expect(theirs).toHaveCount(0);
    await openHydrated(ada, "/");
    await expect(ada.getByRole("navigation", { name: "Threads" }).locator("li.thread-item")).toHaveCount(0);
    expect(trouble.flatMap((t) => t.errors)).toEqual([]);
  } finally {
    await ada.context().close();
    await bob.context().close();
  }
});
