// The README's screenshots (docs/screenshots/): taken only when asked, with
// `WARDEN_SCREENSHOTS=1 npx playwright test screenshots` in end2end/ (after scripts/test.sh built
// everything); skipped in the normal run. The chat's approval is denied at the end, so nothing is
// left waiting for the specs after this one.
import { expect, test, type Page } from "@playwright/test";
import * as path from "node:path";
import { approvalCard, openHydrated, startChat } from "./helpers";

const out = path.resolve(__dirname, "..", "..", "docs", "screenshots");

test.skip(!process.env.WARDEN_SCREENSHOTS, "screenshots are taken only with WARDEN_SCREENSHOTS=1");

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(out, `${name}.png`), animations: "disabled" });
}

test("screenshots of the main screens", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });

  await startChat(page, "Please take an accessibility look for the README");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  await shoot(page, "approval-light");
  await page.emulateMedia({ colorScheme: "dark" });
  await shoot(page, "approval-dark");
  const chatUrl = page.url();

  await openHydrated(page, "/inbox");
  await shoot(page, "inbox-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await openHydrated(page, "/settings");
  await shoot(page, "settings-light");

  await page.setViewportSize({ width: 390, height: 844 });
  await openHydrated(page, chatUrl);
  await shoot(page, "phone-approval");
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(page.getByRole("navigation", { name: "Threads" })).toBeVisible();
  await shoot(page, "phone-drawer");
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 1280, height: 800 });
  await openHydrated(page, chatUrl);
  await approvalCard(page).getByRole("button", { name: "Deny", exact: true }).click();
  await expect(approvalCard(page)).toHaveCount(0);
});
