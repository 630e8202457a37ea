// Passkeys with Chromium's virtual authenticator (CDP WebAuthn): an invitee joins with a passkey instead of a
// password, signs out, and signs in again with it from the sign-in page; their settings list it. WebAuthn
// needs a host name (an IP address is no relying party), so the invitee uses `localhost`, which Warden
// answers to by default; the owner stays on 127.0.0.1.
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { openHydrated, watchForTrouble } from "./helpers";

/** A fresh browser with a platform authenticator that keeps discoverable credentials and verifies its user. */
async function withAuthenticator(context: BrowserContext): Promise<{ page: Page; credentials: () => Promise<number[]> }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => {
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    return credentials.map((c) => c.signCount);
  };
  return { page, credentials };
}

test("an invitee joins with a passkey, signs out, and signs in with it", async ({ page, browser }) => {
  const trouble = watchForTrouble(page);
  await openHydrated(page, "/settings");
  const people = page.getByRole("region", { name: "People" });
  const invite = people.getByRole("form", { name: "Invite someone" });
  await invite.getByLabel("Role").selectOption({ label: "Member" });
  await invite.getByLabel("Name (optional)").fill("Grace Hopper");
  await invite.getByRole("button", { name: "Create invitation link" }).click();
  const link = new URL((await people.locator("code.invite-url").textContent()) ?? "");
  link.hostname = "localhost";
  const origin = link.origin;

  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const { page: theirs, credentials } = await withAuthenticator(context);
    const theirTrouble = watchForTrouble(theirs);
    await theirs.goto(link.toString());
    await expect(theirs.getByRole("heading", { name: "Join Warden" })).toBeVisible();
    await theirs.getByLabel("Login").fill("grace");
    await expect(theirs.getByLabel("Your name")).toHaveValue("Grace Hopper");
    await theirs.getByRole("button", { name: "Use a passkey instead" }).click();
    await expect(theirs.locator("body[data-hydrated]")).toBeAttached();
    await expect(theirs.getByRole("textbox", { name: "Your prompt" })).toBeVisible();
    expect(await credentials()).toHaveLength(1);
    // The owner's table of people says how Grace signs in: one passkey, no password.
    await openHydrated(page, "/settings");
    const graceRow = people.getByRole("row").filter({ hasText: "Grace Hopper" }).filter({ hasText: "grace" });
    await expect(graceRow.locator("td.sign-in-ways")).toHaveText("1 passkey");

    // Their account lists the passkey; they have no password.
    await openHydrated(theirs, `${origin}/settings`);
    const account = theirs.getByRole("region", { name: "Your account" });
    await expect(account).toContainText("Grace Hopper");
    const passkeys = account.getByRole("region", { name: "Passkeys" });
    await expect(passkeys.getByRole("row").filter({ hasText: "Passkey made when joining" })).toContainText("never");

    // Signed out, the link used: only the passkey brings them back.
    const browsers = theirs.getByRole("region", { name: "Signed-in browsers" });
    await browsers.getByRole("button", { name: "Sign out everywhere" }).click();
    await browsers.getByRole("button", { name: "Yes, sign out everywhere" }).click();
    await expect(theirs.getByRole("heading", { name: "Sign in to Warden" })).toBeVisible();
    const signIn = await theirs.goto(`${origin}/sign-in`);
    expect(signIn?.status()).toBe(401);
    await theirs.getByRole("button", { name: "Use a passkey" }).click();
    await expect(theirs.locator("body[data-hydrated]")).toBeAttached();
    await expect(theirs.getByRole("textbox", { name: "Your prompt" })).toBeVisible();
    // The authenticator counted the use (webauthn-rs refuses a counter that does not grow).
    expect((await credentials())[0]).toBeGreaterThan(0);

    await openHydrated(theirs, `${origin}/settings`);
    const row = theirs.getByRole("region", { name: "Passkeys" }).getByRole("row").filter({ hasText: "Passkey made when joining" });
    await expect(row).not.toContainText("never");
    // Their only way in stays.
    await row.getByRole("button", { name: "Remove the passkey Passkey made when joining" }).click();
    await expect(theirs.getByRole("region", { name: "Passkeys" }).getByRole("alert")).toContainText("only way to sign in");

    expect(theirTrouble.errors).toEqual([]);
    expect(trouble.errors).toEqual([]);
  } finally {
    await context.close();
  }
});

test("the owner adds a passkey in Settings and removes it", async ({ browser }) => {
  // The owner's link on localhost (their saved session is for 127.0.0.1).
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  try {
    const { page, credentials } = await withAuthenticator(context);
    const trouble = watchForTrouble(page);
    const base = new URL(test.info().project.use.baseURL ?? "");
    base.hostname = "localhost";
    await page.goto(`${base.origin}/settings?token=${TOKEN}`);
    await expect(page.locator("body[data-hydrated]")).toBeAttached();
    const passkeys = page.getByRole("region", { name: "Your account" }).getByRole("region", { name: "Passkeys" });
    await expect(passkeys).toContainText("You have no passkey yet.");
    await passkeys.getByLabel("Name of the new passkey").fill("Work laptop");
    await passkeys.getByRole("button", { name: "Add a passkey" }).click();
    const row = page.getByRole("region", { name: "Passkeys" }).getByRole("row").filter({ hasText: "Work laptop" });
    await expect(row).toBeVisible();
    expect(await credentials()).toHaveLength(1);
    // The founding owner keeps the printed link, so their only passkey may go.
    await row.getByRole("button", { name: "Remove the passkey Work laptop" }).click();
    await expect(page.getByRole("region", { name: "Passkeys" })).toContainText("You have no passkey yet.");
    expect(trouble.errors).toEqual([]);
  } finally {
    await context.close();
  }
});
