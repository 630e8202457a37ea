// People: the owner invites someone from Settings, the invitee joins by the link (no app, no script) and
// later signs in with a password; their settings show only their own account; the owner disables them and
// their browser is signed out at once.
import { expect, test } from "@playwright/test";
import { openHydrated, watchForTrouble } from "./helpers";

const PASSWORD = "correct horse battery staple";

test("an owner invites an approver who joins by the link, signs in with a password, and is signed out when disabled", async ({
  page,
  browser,
  baseURL,
}) => {
  const trouble = watchForTrouble(page);
  await openHydrated(page, "/settings");
  const people = page.getByRole("region", { name: "People" });
  const invite = people.getByRole("form", { name: "Invite someone" });
  await invite.getByLabel("Role").selectOption({ label: "Approver" });
  await invite.getByLabel("Name (optional)").fill("Ada Lovelace");
  await invite.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await people.locator("code.invite-url").textContent()) ?? "";
  expect(link).toMatch(new RegExp(`^${baseURL}/invite/[0-9a-f]{64}$`));
  await expect(people.getByRole("row").filter({ hasText: "Ada Lovelace" })).toContainText("Approver");

  const fresh = { storageState: { cookies: [], origins: [] } };
  const invitee = await browser.newContext(fresh);
  const later = await browser.newContext(fresh);
  try {
    const theirs = await invitee.newPage();
    await theirs.goto(link);
    await expect(theirs.getByRole("heading", { name: "Join Warden" })).toBeVisible();
    await expect(theirs.getByText("You are invited as Approver")).toBeVisible();
    await expect(theirs.getByLabel("Your name")).toHaveValue("Ada Lovelace");
    await theirs.getByLabel("Login").fill("ada");
    await theirs.getByLabel(/^Password \(at least/).fill(PASSWORD);
    await theirs.getByLabel("Password again").fill(PASSWORD);
    await theirs.getByRole("button", { name: "Join" }).click();
    await expect(theirs.locator("body[data-hydrated]")).toBeAttached();
    await expect(theirs.getByRole("textbox", { name: "Your prompt" })).toBeVisible();

    // Their settings: their account and browsers, none of the owner's sections.
    await openHydrated(theirs, "/settings");
    const account = theirs.getByRole("region", { name: "Your account" });
    await expect(account).toContainText("Ada Lovelace");
    await expect(account).toContainText("approver");
    await expect(theirs.getByRole("region", { name: "Signed-in browsers" })).toBeVisible();
    await expect(theirs.getByRole("region", { name: "People" })).toHaveCount(0);

    // The link worked once.
    const again = await later.newPage();
    const reopened = await again.goto(link);
    expect(reopened?.status()).toBe(410);

    // Another browser of theirs signs in with the password.
    const signIn = await again.goto("/");
    expect(signIn?.status()).toBe(401);
    await again.getByLabel("Login").fill("ada");
    await again.getByLabel("Password").fill(PASSWORD);
    await again.getByRole("button", { name: "Sign in" }).click();
    await expect(again.locator("body[data-hydrated]")).toBeAttached();
    await expect(again.getByRole("textbox", { name: "Your prompt" })).toBeVisible();

    // The owner disables Ada: both her browsers are signed out at once.
    await page.reload();
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    const row = people.getByRole("row").filter({ hasText: "Ada Lovelace" });
    // The table says how she signs in: a password, no passkey, no identity provider.
    await expect(row.locator("td.sign-in-ways")).toHaveText("Password");
    await row.getByRole("button", { name: "Disable Ada Lovelace" }).click();
    await expect(row).toContainText("Disabled");
    for (const signedOut of [theirs, again]) {
      const res = await signedOut.reload();
      expect(res?.status()).toBe(401);
      await expect(signedOut.getByRole("heading", { name: "Sign in to Warden" })).toBeVisible();
    }
    expect(trouble.errors).toEqual([]);
  } finally {
    await invitee.close();
    await later.close();
  }
});
