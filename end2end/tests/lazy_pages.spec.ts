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
  await tab.locator('#sidebar a[href="/settings"]').click();
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
  // The page names its module for the browser to fetch beside the main wasm, not after it.
  await expect(second.locator('head link[rel="preload"][href*="settings"][href$=".wasm"]')).toHaveCount(1);
  await second.locator('#sidebar a[href="/inbox"]').click();
  await expect(second).toHaveURL(/\/inbox$/);
  await expect(second.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
  expect(secondFetched.some((name) => name.includes("inbox"))).toBe(true);
  await again.close();

  expect(trouble.errors).toEqual([]);
  expect(secondTrouble.errors).toEqual([]);
});

test("a page whose code cannot be fetched says the tab stopped; a reload brings the tab back and the page opens", async ({ page }) => {
  await startChat(page, "Please say hello");
  const chat = page.url();
  // The settings page's module is refused once, as a dropped connection (or a module of another build) would.
  let refused = 0;
  await page.route(
    /\/pkg\/split_[^/]*settings[^/]*\.wasm$/,
    async (route) => {
      refused += 1;
      await route.abort("connectionreset");
    },
    { times: 1 },
  );
  await page.locator('#sidebar a[href="/settings"]').click();
  const notice = page.getByRole("alert").filter({ hasText: "This tab stopped working" });
  await expect(notice).toBeVisible();
  expect(refused).toBe(1);

  // The reload reloads the page the tab was on (the navigation never happened), working again.
  await Promise.all([page.waitForEvent("load"), notice.getByRole("link", { name: "Reload" }).click()]);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  expect(page.url()).toBe(chat);
  await expect(notice).toHaveCount(0);
  await page.locator('#sidebar a[href="/settings"]').click();
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
});
