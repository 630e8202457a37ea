// The pages a chat does not need live in wasm modules of their own (app/src/lazy_pages.rs, split by
// `cargo xtask site`): a chat never fetches them, and each is fetched when its page is first shown,
// whether the server rendered that page or the person navigated to it.
import { expect, test, type Page } from "@playwright/test";
import { openHydrated, startChat, watchForTrouble } from "./helpers";

/** The split modules the page fetches from now on. */
function splitModulesFetched(page: Page): string[] {
  const fetched: string[] = [];
  page.on("request", (request) => {
    const name = new URL(request.url()).pathname.split("/").pop() ?? "";
    if (/^split_.*\.wasm$/.test(name)) fetched.push(name);
  });
  return fetched;
}

test("a chat fetches no other page's code; settings fetches its own when opened, rendered or navigated to", async ({ page, browser }) => {
  await startChat(page, "Please say hello");
  const chat = page.url();

  const fresh = await browser.newContext({ storageState: test.info().project.use.storageState });
  const tab = await fresh.newPage();
  const trouble = watchForTrouble(tab);
  const fetched = splitModulesFetched(tab);
  await openHydrated(tab, chat);
  await expect(tab.getByRole("list", { name: "Conversation" }).locator(".message.assistant")).toContainText("Hello from the fixture");
  expect(fetched).toEqual([]);

  // Navigated to in the browser: the module arrives and the page works.
  await tab.getByRole("link", { name: "Settings" }).click();
  await expect(tab.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  expect(fetched.some((name) => name.includes("settings"))).toBe(true);
  expect(fetched.some((name) => name.includes("inbox") || name.includes("audit"))).toBe(false);
  await fresh.close();

  // Rendered by the server: it hydrates from the module it names.
  const again = await browser.newContext({ storageState: test.info().project.use.storageState });
  const second = await again.newPage();
  const secondTrouble = watchForTrouble(second);
  const secondFetched = splitModulesFetched(second);
  await openHydrated(second, "/settings");
  expect(secondFetched.some((name) => name.includes("settings"))).toBe(true);
  await second.getByRole("link", { name: "Inbox" }).first().click();
  await expect(second).toHaveURL(/\/inbox$/);
  await expect(second.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
  expect(secondFetched.some((name) => name.includes("inbox"))).toBe(true);
  await again.close();

  expect(trouble.errors).toEqual([]);
  expect(secondTrouble.errors).toEqual([]);
});
