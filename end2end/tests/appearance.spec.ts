// Issue 14 in the browser: the theme (the system's by default, light or dark by the sidebar's toggle,
// remembered and already in what the server renders), axe-core finding no serious or critical
// violation on every page in both themes (with an approval card waiting on the chat page), a turn of
// only tool calls without an empty bubble, the status line saying the run waits for a decision, a
// bordered Markdown table, and a phone-sized page that is not wider than the phone.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

/** The serious and critical violations axe finds on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

function themeToggle(page: Page) {
  return page.getByRole("button", { name: /^Theme: / });
}

/** Sets the theme with the toggle (system → light → dark → system). */
async function chooseTheme(page: Page, theme: "system" | "light" | "dark"): Promise<void> {
  for (let i = 0; i < 3 && (await themeToggle(page).textContent()) !== `Theme: ${theme}`; i++) {
    await themeToggle(page).click();
  }
  await expect(themeToggle(page)).toHaveText(`Theme: ${theme}`);
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
}

test("the theme toggle goes light and dark, is remembered, and the server renders it", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await openHydrated(page, "/settings");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
  const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const lightBackground = await background();

  await chooseTheme(page, "dark");
  const darkBackground = await background();
  expect(darkBackground).not.toBe(lightBackground);

  // Remembered: the next page comes from the server already dark.
  const html = await (await page.request.get("/settings")).text();
  expect(html).toMatch(/<html[^>]*data-theme="dark"/);
  await openHydrated(page, "/");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(themeToggle(page)).toHaveText("Theme: dark");
  expect(await background()).toBe(darkBackground);

  // Back to the system's: it follows the system again (dark here).
  await chooseTheme(page, "system");
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await background()).toBe(darkBackground);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await background()).toBe(lightBackground);
});

// Axe takes seconds a page on a slow machine: each theme is a test of its own, with room for ten pages.
// Every page: welcome, a chat with an approval card waiting, settings, the inbox, an outside request in
// full screen, the audit log, and the page for an address that is none.
for (const theme of ["light", "dark"] as const) {
  test(`no page has a serious or critical accessibility violation in the ${theme} theme`, async ({ page, request }) => {
    test.setTimeout(180_000);
    const trouble = watchForTrouble(page);
    // An outside request waiting, for its full-screen view.
    const person = { Authorization: `Bearer ${TOKEN}` };
    const client = await request.post("/api/outside/clients", { headers: person, data: { name: `axe-${theme}-${Date.now()}` } });
    expect(client.status()).toBe(201);
    const asked = await request.post("/api/outside/requests", {
      headers: { Authorization: `Bearer ${(await client.json()).token}` },
      data: { type: "security_evaluation", id: "axe", code: "print(1)", language: "python", explanation: "Prints", risk_level: "low" },
    });
    expect(asked.status()).toBe(202);
    const outsideId = (await asked.json()).request_id;
    await startChat(page, `Please take an accessibility look in ${theme}`);
    const card = approvalCard(page);
    await expect(card).toBeVisible();
    const chatUrl = page.url();
    // A turn of only tool calls: no empty bubble of the model's above the call.
    await expect(page.locator(".message.assistant")).toHaveCount(0);
    await expect(page.getByRole("status").filter({ hasText: /^Step/ })).toContainText("waiting for your decision");

    await chooseTheme(page, theme);
    const found: string[] = [];
    for (const url of ["/", chatUrl, "/settings", "/inbox", `/approvals/${outsideId}`, "/audit", "/no-such-page"]) {
      await openHydrated(page, url);
      for (const violation of await seriousViolations(page)) {
        found.push(`${url}: ${violation}`);
      }
    }
    expect(found).toEqual([]);
    const rejected = await request.post(`/api/outside/requests/${outsideId}/decision`, {
      headers: person,
      data: { decision: "rejected" },
    });
    expect(rejected.ok()).toBe(true);

    // Leave nothing waiting for the specs after this one; the model's table is bordered.
    await openHydrated(page, chatUrl);
    await approvalCard(page).getByRole("button", { name: "Deny", exact: true }).click();
    const table = answer(page, "Theme").locator("table");
    await expect(table).toBeVisible();
    const cellBorder = await table.locator("td").first().evaluate((td) => getComputedStyle(td).borderTopStyle);
    expect(cellBorder).toBe("solid");
    await chooseTheme(page, "system");
    expect(trouble.errors).toEqual([]);
  });
}

test("at phone width the chat page, with an approval card being edited, is no wider than the phone", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await startChat(page, "Please take an accessibility look on a phone");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: "Edit", exact: true }).click();
  await expect(card.getByRole("textbox").first()).toBeVisible();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
  await card.getByRole("button", { name: "Cancel editing" }).click();
  await card.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(answer(page, "Theme")).toBeVisible();
});

test("at 360 px the threads are a drawer: Menu opens it, a link or Escape closes it", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openHydrated(page, "/");
  const drawer = page.getByRole("navigation", { name: "Threads" });
  const menu = page.getByRole("button", { name: "Menu" });
  await expect(drawer).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");

  await menu.click();
  await expect(drawer).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await drawer.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL("**/settings");
  await expect(drawer).toBeHidden();

  await menu.click();
  await expect(drawer).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > 361 && getComputedStyle(e).visibility !== "hidden")
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 8),
  );
  expect(wide).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});

test("at 360 px the open drawer is a step of the history: Back closes it, and Back from a page it opened returns to the page before", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await page.setViewportSize({ width: 360, height: 740 });
  await openHydrated(page, "/inbox");
  await openHydrated(page, "/audit");
  const drawer = page.getByRole("navigation", { name: "Threads" });
  const menu = page.getByRole("button", { name: "Menu" });

  // Back with the drawer open closes it and stays on the page.
  await menu.click();
  await expect(drawer).toBeVisible();
  await page.goBack();
  await expect(drawer).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  expect(new URL(page.url()).pathname).toBe("/audit");

  // Closed by Escape, the drawer leaves nothing behind in the history: Back leaves the page.
  await menu.click();
  await expect(drawer).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await expect.poll(() => page.evaluate(() => history.state)).not.toBe("warden-drawer");

  // A link followed from the drawer: Back from the page it opened returns to the page before it.
  await menu.click();
  await expect(drawer).toBeVisible();
  await drawer.getByRole("link", { name: "Settings" }).click();
  await page.waitForURL("**/settings");
  await expect(drawer).toBeHidden();
  await page.goBack();
  await page.waitForURL("**/audit");
  await expect(drawer).toBeHidden();
  await page.goBack();
  await page.waitForURL("**/inbox");
  expect(trouble.errors).toEqual([]);
});

test("while a run works, Stop stands in Send's place", async ({ page }) => {
  await startChat(page, "Please take an accessibility look while it runs");
  await expect(approvalCard(page)).toBeVisible();
  const composer = page.locator("form.composer");
  await expect(composer.getByRole("button", { name: "Send" })).toHaveCount(0);
  await composer.getByRole("button", { name: "Stop" }).click();
  await expect(composer.getByRole("button", { name: "Send" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Stop" })).toHaveCount(0);
});
