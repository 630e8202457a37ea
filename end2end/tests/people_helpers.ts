// Helpers for the specs with more than one person: the owner (the page signed in by the printed link)
// invites someone, who joins in a browser of their own.
import { expect, type Browser, type Page } from "@playwright/test";
import { openHydrated } from "./helpers";

export const PASSWORD = "correct horse battery staple";

/** The owner (on `page`) invites someone as `role`; they join in a browser of their own, whose page is returned. */
export async function invited(page: Page, browser: Browser, role: string, name: string): Promise<Page> {
  await openHydrated(page, "/settings");
  const people = page.getByRole("region", { name: "People" });
  const invite = people.getByRole("form", { name: "Invite someone" });
  await invite.getByLabel("Role").selectOption({ label: role });
  await invite.getByLabel("Name (optional)").fill(name);
  await invite.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await people.locator("code.invite-url").textContent()) ?? "";
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const theirs = await context.newPage();
  await theirs.goto(link);
  await theirs.getByLabel("Login").fill(name.toLowerCase());
  await theirs.getByLabel(/^Password \(at least/).fill(PASSWORD);
  await theirs.getByLabel("Password again").fill(PASSWORD);
  await theirs.getByRole("button", { name: "Join" }).click();
  await expect(theirs.locator("body[data-hydrated]")).toBeAttached();
  return theirs;
}
